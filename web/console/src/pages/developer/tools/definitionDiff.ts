import type { ToolParameter } from '../../../api/types';

/** What a tool's definition holds, in the working copy and in each revision alike. */
export interface Definition {
  name: string;
  description: string;
  endpoint: string;
  method: string;
  authType: string;
  apiKeyHeader: string | null;
  category: string;
  parameters: ToolParameter[];
  /** An oauth2 tool's provider (revisions and the working copy alike; the secret is never part of it). */
  oauth?: OAuthSettings | null;
}

export interface OAuthSettings {
  authorizationUrl: string;
  tokenUrl: string;
  scopes: string[];
  clientId: string;
  tokenAuthMethod: string;
  revocationUrl: string | null;
  extraAuthorizeParams: Record<string, string>;
}

/** The provider's settings as rows of a diff or a definition: label and value, in the editor's order. */
export const OAUTH_LABELS: Record<keyof OAuthSettings, string> = {
  authorizationUrl: 'OAuth authorization URL',
  tokenUrl: 'OAuth token URL',
  scopes: 'OAuth scopes',
  clientId: 'OAuth client ID',
  tokenAuthMethod: 'Token endpoint authentication',
  revocationUrl: 'OAuth revocation URL',
  extraAuthorizeParams: 'Extra authorization parameters',
};

/** Each OAuth setting in words, or none for a tool without a provider. */
export function oauthFacts(oauth: OAuthSettings | null | undefined): Array<{ field: keyof OAuthSettings; label: string; value: string }> {
  if (!oauth) return [];
  const words: Record<keyof OAuthSettings, string> = {
    authorizationUrl: oauth.authorizationUrl,
    tokenUrl: oauth.tokenUrl,
    scopes: oauth.scopes.join(' '),
    clientId: oauth.clientId,
    tokenAuthMethod: oauth.tokenAuthMethod,
    revocationUrl: oauth.revocationUrl ?? '',
    extraAuthorizeParams: Object.entries(oauth.extraAuthorizeParams).map(([name, value]) => `${name}=${value}`).join(' '),
  };
  return (Object.keys(OAUTH_LABELS) as Array<keyof OAuthSettings>).map((field) => ({ field, label: OAUTH_LABELS[field], value: words[field] }));
}

export const FIELD_LABELS: Record<Exclude<keyof Definition, 'parameters' | 'oauth'>, string> = {
  name: 'Name',
  description: 'Description',
  endpoint: 'Endpoint',
  method: 'Method',
  authType: 'Authentication',
  apiKeyHeader: 'API key header',
  category: 'Category',
};

export interface FieldChange {
  /** A definition field, or `oauth.<setting>`. */
  field: keyof typeof FIELD_LABELS | `oauth.${keyof OAuthSettings}`;
  label: string;
  before: string;
  after: string;
}

export type ParameterChange =
  | { kind: 'added'; name: string; after: ToolParameter }
  | { kind: 'removed'; name: string; before: ToolParameter }
  | { kind: 'changed'; name: string; changes: Array<{ label: string; before: string; after: string }> };

export interface DefinitionDiff {
  fields: FieldChange[];
  parameters: ParameterChange[];
  /** Same parameters, same content, another order: models see the order, so it counts as a change. */
  reordered: boolean;
}

const shown = (value: string | null) => (value === null || value === '' ? '(none)' : value);

/** How a parameter reads in a diff: its type (with the item type of an array) and whether it is required. */
export function parameterSummary(p: ToolParameter): string {
  const type = p.type === 'array' && p.items ? `array of ${p.items}` : p.type;
  return `${type}, ${p.required ? 'required' : 'optional'}${p.description ? ` — ${p.description}` : ''}`;
}

function parameterChanges(before: ToolParameter, after: ToolParameter) {
  const out: Array<{ label: string; before: string; after: string }> = [];
  if (before.type !== after.type) out.push({ label: 'Type', before: before.type, after: after.type });
  if ((before.items ?? null) !== (after.items ?? null)) out.push({ label: 'Item type', before: shown(before.items ?? null), after: shown(after.items ?? null) });
  if (before.required !== after.required) out.push({ label: 'Required', before: before.required ? 'yes' : 'no', after: after.required ? 'yes' : 'no' });
  if (before.description !== after.description) out.push({ label: 'Description', before: shown(before.description), after: shown(after.description) });
  return out;
}

/** Field by field, then parameter by parameter (by name): what publishing `after` would change from `before`. */
export function diffDefinitions(before: Definition, after: Definition): DefinitionDiff {
  const fields: FieldChange[] = [];
  for (const [field, label] of Object.entries(FIELD_LABELS) as Array<[keyof typeof FIELD_LABELS, string]>) {
    if (before[field] !== after[field]) fields.push({ field, label, before: shown(before[field]), after: shown(after[field]) });
  }
  // The provider setting by setting: one that appears or goes shows "(none)" on the other side.
  const oldOAuth = new Map(oauthFacts(before.oauth).map((fact) => [fact.field, fact.value]));
  const newOAuth = new Map(oauthFacts(after.oauth).map((fact) => [fact.field, fact.value]));
  for (const [field, label] of Object.entries(OAUTH_LABELS) as Array<[keyof OAuthSettings, string]>) {
    const was = oldOAuth.get(field) ?? null;
    const now = newOAuth.get(field) ?? null;
    if ((was ?? '') !== (now ?? '')) fields.push({ field: `oauth.${field}`, label, before: shown(was), after: shown(now) });
  }
  const old = new Map(before.parameters.map((p) => [p.name, p]));
  const now = new Map(after.parameters.map((p) => [p.name, p]));
  const parameters: ParameterChange[] = [];
  for (const p of after.parameters) {
    const was = old.get(p.name);
    if (!was) parameters.push({ kind: 'added', name: p.name, after: p });
    else {
      const changes = parameterChanges(was, p);
      if (changes.length) parameters.push({ kind: 'changed', name: p.name, changes });
    }
  }
  for (const p of before.parameters) if (!now.has(p.name)) parameters.push({ kind: 'removed', name: p.name, before: p });
  const kept = (list: ToolParameter[], other: Map<string, ToolParameter>) => list.filter((p) => other.has(p.name)).map((p) => p.name).join('\n');
  const reordered = kept(before.parameters, now) !== kept(after.parameters, old);
  return { fields, parameters, reordered };
}

export const isEmptyDiff = (diff: DefinitionDiff) => !diff.fields.length && !diff.parameters.length && !diff.reordered;
