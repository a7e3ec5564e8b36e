import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { toolNotFound } from './errors.js';
import {
  AUTH_TYPES, HEADER_NAME_PATTERN, ITEM_TYPES, MAX_PARAMETERS, PARAMETER_NAME_PATTERN, PARAMETER_TYPES,
  TOOL_CATEGORIES, TOOL_METHODS, TOOL_NAME_PATTERN, TOOL_STATUSES,
} from './definition.js';
import { MAX_EXTRA_AUTHORIZE_PARAMS, MAX_SCOPES, SCOPE_PATTERN, TOKEN_AUTH_METHODS } from './oauth-settings.js';

/** A string from a fixed list, as one `enum` so a violation reads "must be one of: …". */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

const ToolName = Type.String({
  pattern: TOOL_NAME_PATTERN,
  description: 'Models call tools by name: a letter, then letters, digits, `_` or `-`; at most 64 characters. Unique among your tools.',
  examples: ['get_quote'],
});
const Description = MultilineText({ minLength: 1, maxLength: 1024, description: 'What the tool does; the model reads it to decide when to call the tool. 1–1024 characters.' });
const Endpoint = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'An `https://` URL without user name, password or fragment, resolving only to public addresses.',
  examples: ['https://api.example.com/tools/quote'],
});
const ApiKeyHeader = Type.String({ pattern: HEADER_NAME_PATTERN, description: 'For `authType: api_key`: the header that carries the key (default `X-API-Key`).' });

const OAuthUrl = (what: string) => Type.String({
  minLength: 1,
  maxLength: 2048,
  description: `${what}: an \`https://\` URL resolving only to public addresses, like the endpoint.`,
});
const oauthFields = {
  authorizationUrl: OAuthUrl('Where a person signs in and consents (the provider\'s authorization endpoint)'),
  tokenUrl: OAuthUrl('Where codes and refresh tokens are exchanged (the provider\'s token endpoint)'),
  scopes: Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { maxItems: MAX_SCOPES, description: `The scopes asked for, each an RFC 6749 scope token; at most ${MAX_SCOPES}. Ask for \`offline_access\` (or the provider's equivalent) to get a refresh token.` }),
  clientId: Type.String({ minLength: 1, maxLength: 512, description: 'Your client id at the provider.' }),
  tokenAuthMethod: StringEnum(TOKEN_AUTH_METHODS, { description: 'How the client authenticates at the token endpoint: HTTP Basic (`client_secret_basic`, the default) or in the body (`client_secret_post`).' }),
  revocationUrl: Nullable(OAuthUrl('Where tokens are revoked on disconnect (RFC 7009); null when the provider has none')),
  extraAuthorizeParams: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), Type.String({ maxLength: 512 }), {
    maxProperties: MAX_EXTRA_AUTHORIZE_PARAMS,
    description: `Added to the authorization URL as they are (e.g. \`{"access_type": "offline", "prompt": "consent"}\`); at most ${MAX_EXTRA_AUTHORIZE_PARAMS}, never one Switchboard sets itself.`,
  }),
};

export const OAuthInput = named('ToolOAuthInput', Type.Object(
  {
    authorizationUrl: oauthFields.authorizationUrl,
    tokenUrl: oauthFields.tokenUrl,
    scopes: oauthFields.scopes,
    clientId: oauthFields.clientId,
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Your client secret at the provider: write-only, stored encrypted. Required the first time; leave it out to keep the one stored.' })),
    tokenAuthMethod: Type.Optional({ ...oauthFields.tokenAuthMethod, default: 'client_secret_basic' }),
    revocationUrl: Type.Optional(oauthFields.revocationUrl),
    extraAuthorizeParams: Type.Optional(oauthFields.extraAuthorizeParams),
  },
  { additionalProperties: false, description: 'The OAuth 2.0 provider of an `oauth2` tool. Register the redirect URI (`redirectUri` in the answer: `{PUBLIC_URL}/oauth/callback`) at your provider.' },
));
export type OAuthInput = Static<typeof OAuthInput>;

const oauthSettingsFields = {
  authorizationUrl: Type.String(),
  tokenUrl: Type.String(),
  scopes: Type.Array(Type.String()),
  clientId: Type.String(),
  tokenAuthMethod: oauthFields.tokenAuthMethod,
  revocationUrl: Nullable(Type.String()),
  extraAuthorizeParams: Type.Record(Type.String(), Type.String()),
};
/** A revision's provider settings: the secret is never part of one. */
export const OAuthSettingsRecord = named('ToolOAuthSettings', Type.Object(oauthSettingsFields));
export const OAuthRecord = named('ToolOAuth', Type.Object({
  ...oauthSettingsFields,
  hasClientSecret: Type.Boolean({ description: 'Whether a client secret is stored; the secret itself is never answered.' }),
  redirectUri: Type.String({ description: 'Switchboard\'s redirect URI, `{PUBLIC_URL}/oauth/callback`: register it at your provider.' }),
}));

const parameterFields = {
  name: Type.String({ pattern: PARAMETER_NAME_PATTERN, description: 'A letter or `_`, then letters, digits or `_`; at most 64 characters; unique; never `_svc_context`.' }),
  type: StringEnum(PARAMETER_TYPES),
  description: MultilineText({ maxLength: 512, description: 'What the value means; the model reads it. At most 512 characters.' }),
  required: Type.Boolean({ description: 'Whether the model must supply a value.' }),
  items: StringEnum(ITEM_TYPES, { description: 'For `type: array`: the type of its items.' }),
};

export const ToolParameterInput = named('ToolParameterInput', Type.Object(
  {
    name: parameterFields.name,
    type: parameterFields.type,
    description: Type.Optional({ ...parameterFields.description, default: '' }),
    required: Type.Optional({ ...parameterFields.required, default: false }),
    items: Type.Optional(parameterFields.items),
  },
  { additionalProperties: false },
));

export const ToolParameter = named('ToolParameter', Type.Object({
  name: parameterFields.name,
  type: parameterFields.type,
  description: parameterFields.description,
  required: parameterFields.required,
  items: Type.Optional(parameterFields.items),
}));

const Parameters = Type.Array(ToolParameterInput, { maxItems: MAX_PARAMETERS, description: `Parameters the model fills in; at most ${MAX_PARAMETERS}.` });

export const CreateToolBody = named('ToolCreate', Type.Object(
  {
    name: ToolName,
    description: Description,
    endpoint: Endpoint,
    method: Type.Optional(StringEnum(TOOL_METHODS, { default: 'POST', description: 'HTTP method used to call the endpoint; the JSON body is sent whatever the method.' })),
    authType: Type.Optional(StringEnum(AUTH_TYPES, { default: 'none', description: 'How a business\'s credentials are sent to the endpoint.' })),
    apiKeyHeader: Type.Optional(Nullable(ApiKeyHeader)),
    category: Type.Optional(StringEnum(TOOL_CATEGORIES, { default: 'other' })),
    parameters: Type.Optional({ ...Parameters, default: [] }),
    oauth: Type.Optional(OAuthInput),
  },
  { additionalProperties: false },
));
export type CreateToolBody = Static<typeof CreateToolBody>;

/** Any subset of the editable fields; only those given change. `apiKeyHeader: null` removes it. */
export const UpdateToolBody = named('ToolUpdate', ChangesBody(
  {
    name: ToolName,
    description: Description,
    endpoint: Endpoint,
    method: StringEnum(TOOL_METHODS),
    authType: StringEnum(AUTH_TYPES),
    apiKeyHeader: Nullable(ApiKeyHeader),
    category: StringEnum(TOOL_CATEGORIES),
    parameters: Parameters,
    oauth: OAuthInput,
  },
  { description: 'Any subset of the editable fields; only those given change. `apiKeyHeader: null` removes it. `oauth` replaces the provider settings whole (leave `clientSecret` out to keep the stored one).' },
));
export type UpdateToolBody = Static<typeof UpdateToolBody>;

const Timestamp = Type.String({ format: 'date-time' });

export const ToolRecord = named('ToolRecord', Type.Object({
  id: Type.String({ description: 'Tool id (`tool_…`).' }),
  name: ToolName,
  description: Type.String(),
  endpoint: Type.String(),
  method: StringEnum(TOOL_METHODS),
  authType: StringEnum(AUTH_TYPES),
  apiKeyHeader: Nullable(Type.String()),
  category: StringEnum(TOOL_CATEGORIES),
  parameters: Type.Array(ToolParameter),
  oauth: Nullable(OAuthRecord),
  status: StringEnum(TOOL_STATUSES, { description: '`draft` (only you see it) or `published` (in the catalog).' }),
  version: Type.Integer({ minimum: 0, description: 'Number of times published; 0 for never.' }),
  hasUnpublishedChanges: Type.Boolean({ description: 'True when the working copy differs from the latest published revision.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  publishedAt: Nullable(Type.String({ format: 'date-time', description: 'When the tool last went live; null if never published.' })),
}));
export type ToolRecord = Static<typeof ToolRecord>;

export const ToolRevision = named('ToolRevision', Type.Object({
  id: Type.String({ description: 'Revision id (`rev_…`).' }),
  version: Type.Integer({ minimum: 1, description: 'Revisions are numbered 1, 2, … in the order they were published.' }),
  live: Type.Boolean({ description: 'True for the revision the catalog and agents use now; false for older ones and while the tool is withdrawn.' }),
  publishedAt: Timestamp,
  name: ToolName,
  description: Type.String(),
  endpoint: Type.String(),
  method: StringEnum(TOOL_METHODS),
  authType: StringEnum(AUTH_TYPES),
  apiKeyHeader: Nullable(Type.String()),
  category: StringEnum(TOOL_CATEGORIES),
  parameters: Type.Array(ToolParameter),
  oauth: Nullable(OAuthSettingsRecord),
}, { description: 'One published revision: the definition exactly as it went live, never changed afterwards.' }));
export type ToolRevision = Static<typeof ToolRevision>;

export const ToolRevisionListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ToolRevisionListQuery = Static<typeof ToolRevisionListQuery>;

/** The same shape as every other deletion's answer, hence the same name. */
export const DeletedTool = named('Deleted', Type.Object({ id: Type.String(), deleted: Type.Literal(true) }));

export const ToolIdParams = Type.Object({ tool_id: IdParam('tool', toolNotFound, 'Tool id (`tool_…`).') });

export const ToolListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(TOOL_STATUSES)),
    category: Type.Optional(StringEnum(TOOL_CATEGORIES)),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive text searched in name and description.' })),
    ...ListQuery,
  },
  { additionalProperties: false },
);
export type ToolListQuery = Static<typeof ToolListQuery>;

export const EndpointCheckBody = named('EndpointCheck', Type.Object(
  { endpoint: { ...Endpoint, description: 'The endpoint as typed so far: any text up to 2048 characters.' } },
  { additionalProperties: false },
));
export type EndpointCheckBody = Static<typeof EndpointCheckBody>;

const PurposeVerdict = Type.Object({
  accepted: Type.Boolean(),
  message: Nullable(Type.String({ description: 'The ENDPOINT_NOT_ALLOWED message that request would get.' })),
});

export const EndpointVerdict = named('EndpointVerdict', Type.Object({
  https: Type.Boolean({ description: 'Whether the URL uses https://.' }),
  host: Nullable(Type.String({ description: 'The host the URL names (IPv6 without brackets); null when the text is not a URL.' })),
  problem: Nullable(Type.String({ description: 'Why the text cannot be an endpoint whatever the addresses (not https, user name, fragment…).' })),
  addresses: Type.Array(Type.Object({
    address: Type.String(),
    public: Type.Boolean(),
    reason: Type.Optional(Type.String({ description: 'For an internal address: `private`, `loopback`, `link_local`…' })),
    reasonText: Type.Optional(Type.String({ description: 'The reason in words: "a private address".' })),
    embeddedIPv4: Type.Optional(Type.String({ description: 'The IPv4 address a transition form (6to4, NAT64…) carries.' })),
  }), { description: 'Every A/AAAA answer for the host (an IP literal is its own one address), each judged public or internal.' }),
  resolution: Nullable(Type.String({ description: 'Why the host did not resolve ("does not resolve"); null when it did or is an IP literal.' })),
  save: PurposeVerdict,
  publish: PurposeVerdict,
  allowedOnlyByPrivateSetting: Type.Boolean({ description: 'True when some address is internal and is accepted only because this server sets TOOL_ALLOW_PRIVATE_ENDPOINTS (local development).' }),
}));
