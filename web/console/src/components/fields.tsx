import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/**
 * Labelled inputs: the label names the control, the hint and the error are tied to it by
 * aria-describedby, and an error sets aria-invalid.
 */

interface Common {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
}

/**
 * What every labelled control shares: its id, the attributes that tie it to its hint and error
 * (the error read first), and the hint and error paragraphs themselves.
 */
function useDescribed(hint: ReactNode, error: string | undefined) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return {
    control: { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': [errorId, hintId].filter(Boolean).join(' ') || undefined },
    hint: hint ? <p id={hintId} className="hint">{hint}</p> : null,
    error: error ? <p id={errorId} className="field-error">{error}</p> : null,
  };
}

function RequiredLabel({ htmlFor, label, required }: { htmlFor: string; label: ReactNode; required: boolean | undefined }) {
  return (
    <label htmlFor={htmlFor}>
      {label}
      {required ? <span className="req"> (required)</span> : null}
    </label>
  );
}

export function TextField({ label, hint, error, className, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const described = useDescribed(hint, error);
  return (
    <div className={`field ${className ?? ''}`}>
      <RequiredLabel htmlFor={described.control.id} label={label} required={input.required} />
      {described.hint}
      <input {...described.control} {...input} />
      {described.error}
    </div>
  );
}

export function TextArea({ label, hint, error, className, ...input }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const described = useDescribed(hint, error);
  return (
    <div className={`field ${className ?? ''}`}>
      <RequiredLabel htmlFor={described.control.id} label={label} required={input.required} />
      {described.hint}
      <textarea {...described.control} {...input} />
      {described.error}
    </div>
  );
}

export function SelectField({ label, hint, error, className, children, ...input }: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  const described = useDescribed(hint, error);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={described.control.id}>{label}</label>
      {described.hint}
      <select {...described.control} {...input}>
        {children}
      </select>
      {described.error}
    </div>
  );
}

export function CheckboxField({ label, hint, error, className, ...input }: Common & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const described = useDescribed(hint, error);
  return (
    <div className={`check ${className ?? ''}`}>
      <input {...described.control} type="checkbox" {...input} />
      <label htmlFor={described.control.id}>{label}</label>
      {described.hint}
      {described.error}
    </div>
  );
}

/** A refusal or failure that belongs to no one field: announced, and shown as the API worded it. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}
