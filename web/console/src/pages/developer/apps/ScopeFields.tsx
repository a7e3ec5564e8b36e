import { useId } from 'react';
import { CheckboxField } from '../../../components/fields';
import { SCOPES, orderedScopes, type Scope } from './apps';

/** The app's scopes as checkboxes: what the token endpoint may grant it. */
export function ScopeFields({ value, onChange, error }: { value: Scope[]; onChange: (scopes: Scope[]) => void; error?: string | undefined }) {
  const errorId = useId();
  return (
    <fieldset aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>Scopes</legend>
      {SCOPES.map(({ scope, hint }) => (
        <CheckboxField
          key={scope}
          label={scope}
          hint={hint}
          name="scopes"
          checked={value.includes(scope)}
          onChange={(e) => onChange(orderedScopes(e.target.checked ? [...value, scope] : value.filter((s) => s !== scope)))}
        />
      ))}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
