import { TextField } from '../../components/fields';
import type { AuthType } from '../../api/types';
import { CREDENTIAL_FIELDS, type CredentialValues } from './credentials';

/**
 * The inputs an auth type needs. Secrets are password inputs the browser neither fills nor remembers;
 * what was saved is never shown again (the API does not return it).
 */
export function CredentialInputs({
  authType,
  values,
  onChange,
  error,
  required,
}: {
  authType: AuthType;
  values: CredentialValues;
  onChange: (values: CredentialValues) => void;
  error: (name: string) => string | undefined;
  required?: boolean;
}) {
  return (
    <>
      {CREDENTIAL_FIELDS[authType].map((field) => (
        <TextField
          key={field.name}
          label={field.label}
          name={`credentials.${field.name}`}
          type={field.secret ? 'password' : 'text'}
          autoComplete={field.autoComplete}
          spellCheck={false}
          autoCapitalize="off"
          maxLength={4096}
          required={required}
          value={values[field.name] ?? ''}
          onChange={(e) => onChange({ ...values, [field.name]: e.target.value })}
          error={error(`credentials.${field.name}`)}
        />
      ))}
    </>
  );
}
