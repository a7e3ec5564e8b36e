import type { DeveloperTool } from '../../../api/types';
import type { Checks } from '../../../lib/errors';
import type { ExportedParameter } from '../../../../../tools/export';
import { MAX_PARAMETERS, parameterNameProblems, type ItemType, type ParameterType } from '../../../../../tools/parameters';

/**
 * The tool editor's state and what it sends: the Developer API's tool definition (docs/developer-api.md,
 * "Tools") as the form holds it, its checks before sending (the API's own parameter-name rules, from
 * web/tools/parameters.ts), and the body of POST /api/dev/tools or PUT /api/dev/tools/{id}.
 */

export const TOOL_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly DeveloperTool['method'][];

export interface ParameterDraft {
  /** Stable across renames and moves: React's key, and how a moved row finds its buttons again. */
  key: string;
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
  /** For arrays: the item type, or '' for any value. */
  items: ItemType | '';
}

/** One extra authorization parameter as the form holds it (a row of name and value). */
export interface ExtraParamDraft {
  key: string;
  name: string;
  value: string;
}

export type TokenAuthMethod = NonNullable<DeveloperTool['oauth']>['tokenAuthMethod'];
export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const satisfies readonly TokenAuthMethod[];

/**
 * An oauth2 tool's provider as the form holds it: scopes as typed (space- or comma-separated), the client
 * secret as typed (empty keeps the stored one; the API never answers it), the extras as rows.
 */
export interface OAuthDraft {
  authorizationUrl: string;
  tokenUrl: string;
  scopes: string;
  clientId: string;
  clientSecret: string;
  tokenAuthMethod: TokenAuthMethod;
  revocationUrl: string;
  extraParams: ExtraParamDraft[];
}

export interface ToolDraft {
  name: string;
  description: string;
  endpoint: string;
  method: DeveloperTool['method'];
  authType: DeveloperTool['authType'];
  apiKeyHeader: string;
  category: DeveloperTool['category'];
  parameters: ParameterDraft[];
  /** Kept while another authType is chosen (switching back finds it again); sent only with `oauth2`. */
  oauth: OAuthDraft;
}

let lastKey = 0;
export const newKey = () => `p${++lastKey}`;

export const blankParameter = (): ParameterDraft => ({ key: newKey(), name: '', type: 'string', description: '', required: false, items: '' });

export const blankExtraParam = (): ExtraParamDraft => ({ key: newKey(), name: '', value: '' });

export const blankOAuth = (): OAuthDraft => ({
  authorizationUrl: '', tokenUrl: '', scopes: '', clientId: '', clientSecret: '', tokenAuthMethod: 'client_secret_basic', revocationUrl: '', extraParams: [],
});

export const blankDraft = (): ToolDraft => ({
  name: '', description: '', endpoint: '', method: 'POST', authType: 'none', apiKeyHeader: '', category: 'other', parameters: [], oauth: blankOAuth(),
});

/** The form's OAuth section from a saved tool's settings (never a secret: the API answers only `hasClientSecret`). */
export function oauthDraftOf(oauth: DeveloperTool['oauth']): OAuthDraft {
  if (!oauth) return blankOAuth();
  return {
    authorizationUrl: oauth.authorizationUrl,
    tokenUrl: oauth.tokenUrl,
    scopes: oauth.scopes.join(' '),
    clientId: oauth.clientId,
    clientSecret: '',
    tokenAuthMethod: oauth.tokenAuthMethod,
    revocationUrl: oauth.revocationUrl ?? '',
    extraParams: Object.entries(oauth.extraAuthorizeParams).map(([name, value]) => ({ key: newKey(), name, value })),
  };
}

/** Scopes as typed, separated by spaces or commas: each once, in the order typed. */
export function parseScopes(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export function draftOf(tool: DeveloperTool): ToolDraft {
  return {
    name: tool.name,
    description: tool.description,
    endpoint: tool.endpoint,
    method: tool.method,
    authType: tool.authType,
    apiKeyHeader: tool.apiKeyHeader ?? '',
    category: tool.category,
    parameters: tool.parameters.map((p) => ({ key: newKey(), name: p.name, type: p.type, description: p.description, required: p.required, items: p.items ?? '' })),
    oauth: oauthDraftOf(tool.oauth),
  };
}

/** The draft without its row keys: what "unsaved changes" compares. */
export function comparable(draft: ToolDraft): string {
  return JSON.stringify({
    ...draft,
    parameters: draft.parameters.map(({ key: _key, ...rest }) => rest),
    oauth: { ...draft.oauth, extraParams: draft.oauth.extraParams.map(({ key: _key, ...rest }) => rest) },
  });
}

/** The parameters as the API stores them (and the export reads them). */
export function parametersOf(draft: ToolDraft): ExportedParameter[] & Array<{ items?: ItemType }> {
  return draft.parameters.map((p) => ({
    name: p.name.trim(),
    type: p.type,
    description: p.description,
    required: p.required,
    ...(p.type === 'array' && p.items !== '' ? { items: p.items } : {}),
  }));
}

/**
 * The `oauth` object the API takes: URLs and the client id trimmed, scopes parsed, extras with a name (trimmed);
 * the client secret only when one was typed (left out, the stored one is kept), and exactly as typed.
 */
export function oauthBody(oauth: OAuthDraft) {
  const extras = oauth.extraParams.filter((row) => row.name.trim() !== '');
  return {
    authorizationUrl: oauth.authorizationUrl.trim(),
    tokenUrl: oauth.tokenUrl.trim(),
    scopes: parseScopes(oauth.scopes),
    clientId: oauth.clientId.trim(),
    ...(oauth.clientSecret !== '' ? { clientSecret: oauth.clientSecret } : {}),
    tokenAuthMethod: oauth.tokenAuthMethod,
    revocationUrl: oauth.revocationUrl.trim() || null,
    extraAuthorizeParams: Object.fromEntries(extras.map((row) => [row.name.trim(), row.value])),
  };
}

/** The create or full-update body: every field, so the working copy becomes exactly the form. */
export function toolBody(draft: ToolDraft) {
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    endpoint: draft.endpoint.trim(),
    method: draft.method,
    authType: draft.authType,
    // Only api_key has a header; sending null elsewhere clears one left from an earlier auth type.
    apiKeyHeader: draft.authType === 'api_key' && draft.apiKeyHeader.trim() ? draft.apiKeyHeader.trim() : null,
    category: draft.category,
    parameters: parametersOf(draft),
    // Only oauth2 has a provider; the API drops the settings of a tool that stops being oauth2.
    ...(draft.authType === 'oauth2' ? { oauth: oauthBody(draft.oauth) } : {}),
  };
}

/** Problems of the parameter names as typed: the API's rules, with its words. Empty names are left to `checks`. */
export function nameProblemsAsTyped(draft: ToolDraft): Record<string, string> {
  const names = draft.parameters.map((p) => p.name.trim());
  const out: Record<string, string> = {};
  for (const problem of parameterNameProblems(names, { checkPattern: true })) {
    const index = Number(problem.path.split('.')[1]);
    if (names[index] === '') continue;
    out[problem.path] = `The name ${problem.message}.`;
  }
  return out;
}

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/;
const EXTRA_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The OAuth section's checks (when authType is oauth2), by the API's field names; the extras' rows by
 * `oauth.extra.{i}.name`. `hasClientSecret`: one is stored, so the field may stay empty.
 */
export function oauthChecks(oauth: OAuthDraft, hasClientSecret: boolean): Checks {
  const out: Checks = {
    'oauth.authorizationUrl': oauth.authorizationUrl.trim() ? null : 'Enter the provider’s https:// authorization URL, where people sign in and consent.',
    'oauth.tokenUrl': oauth.tokenUrl.trim() ? null : 'Enter the provider’s https:// token URL.',
    'oauth.scopes': parseScopes(oauth.scopes).some((scope) => !SCOPE_TOKEN.test(scope)) ? 'A scope is printable characters without spaces, quotes (") or backslashes.' : null,
    'oauth.clientId': oauth.clientId.trim() ? null : 'Enter your client id at the provider.',
    'oauth.clientSecret': oauth.clientSecret || hasClientSecret ? null : 'Enter your client secret at the provider.',
  };
  const seen = new Set<string>();
  oauth.extraParams.forEach((row, index) => {
    const name = row.name.trim();
    let problem: string | null = null;
    if (!name) problem = row.value ? 'Give the parameter a name, or remove it.' : null;
    else if (!EXTRA_NAME.test(name)) problem = 'A name is letters, digits, _, . or - (at most 64 characters).';
    else if (seen.has(name)) problem = `The name repeats “${name}”.`;
    seen.add(name);
    out[`oauth.extra.${index}.name`] = problem;
  });
  return out;
}

/** Everything checked before sending, by the API's field names. */
export function checks(draft: ToolDraft, hasClientSecret = false): Checks {
  const out: Checks = {
    name: draft.name.trim() ? null : 'Give the tool a name, like get_weather.',
    description: draft.description.trim() ? null : 'Say what the tool does: the model reads it to decide when to call the tool.',
    endpoint: draft.endpoint.trim() ? null : 'Enter the https:// address the service calls.',
    parameters: draft.parameters.length > MAX_PARAMETERS ? `A tool takes at most ${MAX_PARAMETERS} parameters.` : null,
  };
  draft.parameters.forEach((p, index) => {
    if (!p.name.trim()) out[`parameters.${index}.name`] = 'Give the parameter a name, or remove it.';
  });
  return { ...out, ...nameProblemsAsTyped(draft), ...(draft.authType === 'oauth2' ? oauthChecks(draft.oauth, hasClientSecret) : {}) };
}

/** Moves the item at `from` by `by` places; the same array when it would leave the list. */
export function moved<T>(items: readonly T[], from: number, by: -1 | 1): T[] {
  const to = from + by;
  if (to < 0 || to >= items.length) return [...items];
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}

const OAUTH_FIELDS = ['authorizationUrl', 'tokenUrl', 'scopes', 'clientId', 'clientSecret', 'tokenAuthMethod', 'revocationUrl', 'extraAuthorizeParams'] as const;

/** The field names the API's refusals may name, for useFormErrors. */
export function errorFields(draft: ToolDraft): string[] {
  const fields = ['name', 'description', 'endpoint', 'method', 'authType', 'apiKeyHeader', 'category', 'parameters'];
  draft.parameters.forEach((_, i) => fields.push(`parameters.${i}.name`, `parameters.${i}.type`, `parameters.${i}.description`, `parameters.${i}.items`));
  if (draft.authType === 'oauth2') {
    fields.push('oauth', ...OAUTH_FIELDS.map((name) => `oauth.${name}`));
    // The API names an extra by its name (`oauth.extraAuthorizeParams.prompt`); the page's checks by its row.
    draft.oauth.extraParams.forEach((row, i) => {
      fields.push(`oauth.extra.${i}.name`);
      if (row.name.trim()) fields.push(`oauth.extraAuthorizeParams.${row.name.trim()}`);
    });
  }
  return fields;
}
