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

function describedBy(hintId: string | undefined, errorId: string | undefined): string | undefined {
  const ids = [errorId, hintId].filter(Boolean).join(' ');
  return ids || undefined;
}

export function TextField({ label, hint, error, className, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>
        {label}
        {input.required ? <span className="req"> (required)</span> : null}
      </label>
      {hint ? <p id={hintId} className="hint">{hint}</p> : null}
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(hintId, errorId)} {...input} />
      {error ? <p id={errorId} className="field-error">{error}</p> : null}
    </div>
  );
}

export function TextArea({ label, hint, error, className, ...input }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>
        {label}
        {input.required ? <span className="req"> (required)</span> : null}
      </label>
      {hint ? <p id={hintId} className="hint">{hint}</p> : null}
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(hintId, errorId)} {...input} />
      {error ? <p id={errorId} className="field-error">{error}</p> : null}
    </div>
  );
}

export function SelectField({ label, hint, error, className, children, ...input }: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {hint ? <p id={hintId} className="hint">{hint}</p> : null}
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(hintId, errorId)} {...input}>
        {children}
      </select>
      {error ? <p id={errorId} className="field-error">{error}</p> : null}
    </div>
  );
}

export function CheckboxField({ label, hint, error, className, ...input }: Common & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={`check ${className ?? ''}`}>
      <input id={id} type="checkbox" aria-invalid={error ? true : undefined} aria-describedby={describedBy(hintId, errorId)} {...input} />
      <label htmlFor={id}>{label}</label>
      {hint ? <p id={hintId} className="hint">{hint}</p> : null}
      {error ? <p id={errorId} className="field-error">{error}</p> : null}
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
