import type { AuthType, Credentials } from '../../api/types';

/** One credential input of an auth type: the API's field name, its label, and how browsers should fill it. */
export interface CredentialField {
  name: keyof Credentials;
  label: string;
  autoComplete: 'off' | 'new-password';
  secret: boolean;
}

const secret = (name: keyof Credentials, label: string): CredentialField => ({ name, label, autoComplete: 'new-password', secret: true });

/** What each auth type takes (docs/operator-api.md, "Installations"): nothing for `none`. */
export const CREDENTIAL_FIELDS: Record<AuthType, CredentialField[]> = {
  none: [],
  api_key: [secret('apiKey', 'API key')],
  bearer: [secret('token', 'Bearer token')],
  basic: [{ name: 'username', label: 'Username', autoComplete: 'off', secret: false }, secret('password', 'Password')],
  hmac: [secret('secret', 'Signing secret')],
  // A connected account instead (POST /api/org/installations/{id}/connection): nothing to type.
  oauth2: [],
};

export const AUTH_LABELS: Record<AuthType, string> = {
  none: 'No credentials',
  api_key: 'API key',
  bearer: 'Bearer token',
  basic: 'Username and password',
  hmac: 'HMAC signing secret',
  oauth2: 'OAuth 2.0: a connected account',
};

export type CredentialValues = Partial<Record<keyof Credentials, string>>;

/**
 * The credentials object the API takes for an auth type, from what was typed: exactly that type's fields
 * (values as typed: a key's spaces may matter). Undefined when nothing was typed, so the installation is
 * made without them.
 */
export function credentialsBody(authType: AuthType, values: CredentialValues): Credentials | undefined {
  const fields = CREDENTIAL_FIELDS[authType];
  if (!fields.length || fields.every((field) => !values[field.name])) return undefined;
  const body: Credentials = {};
  for (const field of fields) body[field.name] = values[field.name] ?? '';
  return body;
}

/** The page's own checks: once any credential is typed, all of that type's fields are needed. */
export function credentialProblems(authType: AuthType, values: CredentialValues, required = false): Record<string, string | null> {
  const fields = CREDENTIAL_FIELDS[authType];
  const started = fields.some((field) => values[field.name]);
  const problems: Record<string, string | null> = {};
  for (const field of fields) {
    problems[`credentials.${field.name}`] = (started || required) && !values[field.name] ? `Enter the ${field.label.toLowerCase()}.` : null;
  }
  return problems;
}
