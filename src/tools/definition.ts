import { parameterNameProblems, type ItemType, type ParameterType } from '../../web/tools/parameters.js';
import { AppError, type ErrorDetail } from '../http/errors.js';
import { oauthSettingsProblems, type OAuthSettings } from './oauth-settings.js';

/**
 * What a tool is, independent of storage and wire: the developer-editable fields
 * and the rules that hold whichever surface (API, portal) changes them.
 */
export const TOOL_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const;
export const AUTH_TYPES = ['none', 'api_key', 'bearer', 'basic', 'hmac', 'oauth2'] as const;
export const TOOL_CATEGORIES = [
  'crm', 'sales', 'marketing', 'support', 'scheduling', 'ecommerce', 'payments',
  'finance', 'communication', 'productivity', 'data', 'developer', 'other',
] as const;
// The parameter rules are shared with the portal's editor (web/tools/parameters.ts).
export { ITEM_TYPES, MAX_PARAMETERS, PARAMETER_NAME_PATTERN, PARAMETER_TYPES, RESERVED_PARAMETER, type ItemType, type ParameterType } from '../../web/tools/parameters.js';
export const TOOL_STATUSES = ['draft', 'published'] as const;

export type ToolMethod = (typeof TOOL_METHODS)[number];
export type AuthType = (typeof AUTH_TYPES)[number];
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];
export type ToolStatus = (typeof TOOL_STATUSES)[number];

/** A credential an installation gives for its tool's authType (invocation/schema.ts: InstallationCredentials). */
export type CredentialField = 'apiKey' | 'token' | 'username' | 'password' | 'secret';
/** The credential fields each authType takes, in the order they are documented: installations require them, the catalog names them. */
export const CREDENTIAL_FIELDS: Record<AuthType, ReadonlyArray<CredentialField>> = {
  none: [],
  api_key: ['apiKey'],
  bearer: ['token'],
  basic: ['username', 'password'],
  hmac: ['secret'],
  // Nothing to paste: a person connects an account (connections/), and each call sends its access token.
  oauth2: [],
};

export const TOOL_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';
/** RFC 9110 §5.6.2 token: what an HTTP header name may be. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$";

/** Headers the service sets itself or that frame the request: an API key may not replace them. */
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'content-type', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'te',
  'trailer', 'upgrade', 'expect', 'proxy-authorization', 'proxy-connection', 'accept', 'user-agent',
  'x-svc-timestamp', 'x-svc-signature',
]);

export interface ToolParameter {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
  items?: ItemType;
}

export interface ToolDefinition {
  name: string;
  description: string;
  endpoint: string;
  method: ToolMethod;
  authType: AuthType;
  /** Header that carries the key for `api_key` (X-API-Key when null); null for other auth types. */
  apiKeyHeader: string | null;
  category: ToolCategory;
  parameters: ToolParameter[];
  /** The OAuth provider for `oauth2` (no client secret: that is write-only, client-secret.ts); null for other auth types. */
  oauth: OAuthSettings | null;
}

export const DEFAULTS = { method: 'POST', authType: 'none', category: 'other', apiKeyHeader: null, parameters: [], oauth: null } as const;

/** Parameters as stored and compared: fixed key order, defaults filled in. */
export function normalizeParameters(parameters: ReadonlyArray<Partial<ToolParameter> & Pick<ToolParameter, 'name' | 'type'>>): ToolParameter[] {
  return parameters.map((p) => ({
    name: p.name,
    type: p.type,
    description: p.description ?? '',
    required: p.required ?? false,
    ...(p.items !== undefined ? { items: p.items } : {}),
  }));
}

/** Rules a JSON schema cannot say; every problem at once, as VALIDATION_ERROR details. */
export function assertValidDefinition(definition: ToolDefinition): void {
  const problems: ErrorDetail[] = [];
  if (definition.description.trim() === '') problems.push({ path: 'description', message: 'must say what the tool does; the model reads it to decide when to call the tool' });

  if (definition.apiKeyHeader !== null) {
    if (definition.authType !== 'api_key') problems.push({ path: 'apiKeyHeader', message: 'only applies when authType is api_key' });
    else if (RESERVED_HEADERS.has(definition.apiKeyHeader.toLowerCase())) problems.push({ path: 'apiKeyHeader', message: `cannot be ${definition.apiKeyHeader}: the service sets that header itself` });
  }

  if (definition.authType === 'oauth2' && definition.oauth === null) problems.push({ path: 'oauth', message: 'is required when authType is oauth2: the provider\'s authorizationUrl, tokenUrl, scopes, clientId and clientSecret' });
  if (definition.authType !== 'oauth2' && definition.oauth !== null) problems.push({ path: 'oauth', message: 'only applies when authType is oauth2' });
  if (definition.oauth !== null) problems.push(...oauthSettingsProblems(definition.oauth));

  const names = parameterNameProblems(definition.parameters.map((parameter) => parameter.name));
  definition.parameters.forEach((parameter, index) => {
    const path = `parameters.${index}`;
    problems.push(...names.filter((problem) => problem.path === `${path}.name`));
    if (parameter.items !== undefined && parameter.type !== 'array') problems.push({ path: `${path}.items`, message: 'only applies to parameters of type array' });
  });

  if (problems.length === 0) return;
  const first = problems[0]!;
  const message = problems.length === 1 ? `Invalid request: ${first.path} ${first.message}.` : `Invalid request: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`;
  throw new AppError('VALIDATION_ERROR', message, { details: problems, ...(problems.length === 1 ? { field: first.path } : {}) });
}
