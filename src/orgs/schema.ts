import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { idPattern } from '../lib/ids.js';
import type { OrgLimit } from '../http/tenant-limits.js';
import { agentKeyNotFound, agentNotFound, apiKeyNotFound } from './errors.js';
import { WEEKDAYS } from './office-hours.js';

/** Wire schemas of the Operator API's organization resources: the organization itself, API keys and agents. */

export const AgentIdParams = Type.Object({ id: IdParam('agt', agentNotFound, 'The agent id (`agt_…`).') });
export const ApiKeyIdParams = Type.Object({ id: IdParam('key', apiKeyNotFound, 'The API key id (`key_…`).') });
export const Deleted = named('Deleted', Type.Object({ id: Type.String(), deleted: Type.Literal(true) }));
export const PageQuery = Type.Object(ListQuery, { additionalProperties: false });

// ── The organization ──

/** Ten years: far past any legal need. */
export const MAX_RETENTION_DAYS = 3650;
/** Webhook delivery bodies are forgotten after 7 days anyway (webhooks/service.ts): a setting can only shorten that. */
export const MAX_WEBHOOK_BODIES_DAYS = 7;

const RETENTION_FIELDS = 'submissionsDays: a submission\'s values, UTM, IP and user agent are cleared (the row stays, so form counts do not change); conversationsDays: conversations with their messages, by last activity; callLogDays: the tool call log; webhookBodiesDays: webhook delivery bodies (the rows stay).';

export const Retention = named('Retention', Type.Object({
  submissionsDays: Type.Union([Type.Integer(), Type.Null()]),
  conversationsDays: Type.Union([Type.Integer(), Type.Null()]),
  callLogDays: Type.Union([Type.Integer(), Type.Null()]),
  webhookBodiesDays: Type.Union([Type.Integer(), Type.Null()]),
}, { description: `Days personal data is kept; null: kept until deleted. ${RETENTION_FIELDS} docs/privacy.md.` }));
export type Retention = Static<typeof Retention>;

const days = (name: string, maximum: number) => {
  const errorMessage = `must be a whole number of days from 1 to ${maximum}, or null to keep them`;
  return named(name, Type.Union([Type.Integer({ minimum: 1, maximum, errorMessage }), Type.Null({ errorMessage })], { errorMessage }));
};

const RetentionDays = days('RetentionDays', MAX_RETENTION_DAYS);

export const RetentionPatch = named('RetentionPatch', ChangesBody({
  submissionsDays: RetentionDays,
  conversationsDays: RetentionDays,
  callLogDays: RetentionDays,
  webhookBodiesDays: days('WebhookBodiesDays', MAX_WEBHOOK_BODIES_DAYS),
}, { description: 'Only the fields given change; null clears one. Owners only (403 FORBIDDEN for a member).' }));
export type RetentionPatch = Static<typeof RetentionPatch>;

export const Organization = named('Organization', Type.Object({
  id: Type.String({ description: '`org_…`' }),
  name: Type.String(),
  defaultCountry: Type.String({ description: 'ISO 3166-1 alpha-2 code, in capitals: national phone numbers (written without +) are read as numbers of this country.', examples: ['US'] }),
  createdAt: Type.String({ format: 'date-time' }),
  dailyTokenBudget: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The most model tokens (input + output) the organization\'s agent conversations may use per UTC day; null: no limit. Only an owner may change it. docs/conversations.md.',
  }),
  tokensUsedToday: Type.Integer({ description: 'The tokens its conversation turns have used since 00:00 UTC today.' }),
  retention: Retention,
}));
export type Organization = Static<typeof Organization>;

/** The largest daily token budget: a day's count is a bigint, a budget an integer column. */
export const MAX_DAILY_TOKEN_BUDGET = 1_000_000_000;

export const OrganizationPatch = named('OrganizationPatch', ChangesBody({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'The organization\'s name.' }),
  defaultCountry: Type.String({
    pattern: '^[A-Za-z]{2}$',
    errorMessage: 'must be a two-letter country code such as US, GB or FR',
    description: 'An ISO 3166-1 alpha-2 code the phone library knows (`GB`, not `UK`), in any case; stored in capitals. Applies to numbers written from now on.',
    examples: ['GB'],
  }),
  dailyTokenBudget: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_DAILY_TOKEN_BUDGET }), Type.Null()], {
    description: 'The most model tokens (input + output) the organization\'s agent conversations may use per UTC day, 1–1,000,000,000; null removes the limit. Owners only (403 FORBIDDEN for a member). A turn that would start with the day\'s budget used up is refused with 429 RATE_LIMIT_EXCEEDED until 00:00 UTC.',
    examples: [2_000_000],
  }),
  retention: RetentionPatch,
}));
export type OrganizationPatch = Static<typeof OrganizationPatch>;

// ── Limits ──

const usage = (counted: string) => Type.Object({ limit: Type.Integer({ minimum: 0 }), used: Type.Integer({ minimum: 0, description: counted }) });

export const OrgLimits = named('OrgLimits', Type.Object({
  agents: usage('Its agents.'),
  forms: usage('Its forms, active or not.'),
  apiKeys: usage('Its API keys not revoked.'),
  agentKeysPerAgent: usage('The most keys any one of its agents has: this limit is per agent.'),
  modelProviders: usage('Its model providers.'),
  customFields: usage('Its custom fields, archived ones included.'),
  pipelines: usage('Its pipelines, the default one included.'),
  pendingInvitations: usage('Its invitations not yet accepted, revoked or expired.'),
  webhooks: usage('Its webhooks, enabled or not.'),
} satisfies Record<OrgLimit, TSchema>, { description: 'Each limit of the organization (`limit`: the most it may have, the default or what its Switchboard operator set with `switchboard org limits`; a create past it is 409 LIMIT_REACHED) and how much of it is used (`used`).' }));

// ── API keys ──

export const ApiKey = named('ApiKey', Type.Object({
  id: Type.String({ description: '`key_…`' }),
  name: Type.String(),
  lastFour: Type.String({ description: 'The last four characters of the key, to tell keys apart.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Updated at most once a minute.' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}));
export type ApiKey = Static<typeof ApiKey>;
export const CreatedApiKey = named(
  'CreatedApiKey',
  Type.Intersect([ApiKey, Type.Object({ key: Type.String({ description: 'The key (`svc_org_…`). Shown only in this response: store it now.' }) })]),
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;
export const ApiKeyPage = Page(ApiKey);
export const ApiKeyCreate = named('ApiKeyCreate', Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "Zapier".' }) },
  { additionalProperties: false },
));

// ── An agent's model ──

/** One round is one model answer that asks for tools; the default leaves room for a lookup, a retry and an action. */
export const DEFAULT_MAX_TOOL_ROUNDS = 8;
// Instructions: 16,000 characters (about 4,000 tokens) of the widest BMP text (3 bytes each in UTF-8) still fit the 64 KB Operator API body.
const INSTRUCTIONS_MAX = 16_000;

export const AgentModelInput = named('AgentModelInput', Type.Object(
  {
    providerId: Type.String({ pattern: idPattern('mp'), description: 'A model provider of your organization (`mp_…`).' }),
    model: Type.String({ minLength: 1, maxLength: 200, description: 'The model id as the provider names it, e.g. `gpt-4.1-mini`, `claude-sonnet-4-5`, `llama3.1:8b`.' }),
    instructions: MultilineText({ maxLength: INSTRUCTIONS_MAX, description: 'The system prompt, up to 16,000 characters; may be empty.' }),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: '0–2; omitted: the provider\'s default.' })),
    maxToolRounds: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, default: DEFAULT_MAX_TOOL_ROUNDS, description: 'Model answers that call tools in one turn before it must answer in text, 1–32 (default 8).' })),
  },
  { additionalProperties: false },
));
export type AgentModelInput = Static<typeof AgentModelInput>;

export const AgentModel = named('AgentModel', Type.Object({
  providerId: Type.String({ description: '`mp_…`' }),
  model: Type.String(),
  instructions: Type.String(),
  temperature: Type.Union([Type.Number(), Type.Null()], { description: 'Null: the provider\'s default.' }),
  maxToolRounds: Type.Integer(),
}));
export type AgentModel = Static<typeof AgentModel>;

// ── Agents ──

const HexColor = Type.String({ pattern: '^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$', description: 'Hex color: #rgb or #rrggbb.' });
// No quotes, semicolons, braces or angle brackets: the value ends up in CSS.
const FontFamily = Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9][A-Za-z0-9 ,'-]*$", description: 'A CSS font-family list, e.g. `Inter, sans-serif`.' });
const LogoUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'An https:// URL of the logo image.' });

export const Branding = named('Branding', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Brand name shown on forms.' }),
    primaryColor: HexColor,
    backgroundColor: HexColor,
    textColor: HexColor,
    fontFamily: Type.Union([FontFamily, Type.Null()]),
    logoUrl: LogoUrl,
  },
  { additionalProperties: false },
));
export type Branding = Static<typeof Branding>;

export const BrandingInput = named('BrandingInput', Type.Object(
  {
    name: Branding.properties.name,
    primaryColor: HexColor,
    backgroundColor: HexColor,
    textColor: HexColor,
    fontFamily: Type.Optional(Type.Union([FontFamily, Type.Null()], { description: 'Omit or null for the browser default.' })),
    logoUrl: LogoUrl,
  },
  { additionalProperties: false },
));

export const BrandingPatch = named('BrandingPatch', Type.Partial(BrandingInput, { additionalProperties: false }));

/** The largest welcome message of a chat widget: a greeting, not a page. */
export const MAX_WELCOME_MESSAGE_CHARS = 500;

export const AgentChat = named('AgentChat', Type.Object({
  enabled: Type.Boolean({ description: 'Whether the chat widget answers; off by default.' }),
  chatId: Type.String({ description: 'The chat\'s public id (`chat_…`): the embed snippet\'s `data-svc-chat`, beside `{base_url}/chat-embed.js`. Reveals no internal id; never changes.' }),
  allowedOrigins: Type.Array(Type.String(), { description: 'The sites the widget works on, as browsers send `Origin`: `https://shop.example.com`, or `https://*.example.com` for any one-label subdomain. Any other origin is refused.' }),
  welcomeMessage: Type.String({ description: 'The first thing the widget says; empty: none.' }),
  leadFormId: Type.Union([Type.String(), Type.Null()], { description: 'The form (`frm_…`) whose fields lead capture asks for; null: no lead capture.' }),
  dailyTokenBudget: Type.Union([Type.Integer(), Type.Null()], { description: 'The most model tokens the widget\'s conversations with this agent may use per UTC day; null: no limit of its own (the organization\'s budget still applies).' }),
}));
export type AgentChat = Static<typeof AgentChat>;

export const AgentChatPatch = named('AgentChatPatch', ChangesBody({
  enabled: Type.Boolean({ description: 'Turns the widget on or off.' }),
  allowedOrigins: Type.Array(Type.String({ maxLength: 300 }), {
    maxItems: 100,
    description: 'The whole list (it replaces the stored one): at most 20 origins, each `scheme://host[:port]` (http or https; no path, query or fragment), optionally with one leading `*.` label. Stored lowercase, without the default port.',
    examples: [['https://shop.example.com', 'https://*.example.com']],
  }),
  welcomeMessage: MultilineText({ maxLength: MAX_WELCOME_MESSAGE_CHARS, description: `The widget's first message, at most ${MAX_WELCOME_MESSAGE_CHARS} characters (line breaks allowed); empty for none.` }),
  leadFormId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'A form of your organization (404 FORM_NOT_FOUND otherwise), or null for no lead capture.' }),
  dailyTokenBudget: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_DAILY_TOKEN_BUDGET }), Type.Null()], { description: 'Tokens per UTC day for this agent\'s widget conversations, 1–1,000,000,000; null removes the limit.' }),
}, { description: 'The chat widget\'s settings: only the fields given change.' }));
export type AgentChatPatch = Static<typeof AgentChatPatch>;

/** Hand-off (issue 35): how long a visitor waits for a person, at most an hour. */
export const HANDOFF_WAIT_SECONDS = { default: 300, min: 30, max: 3600 } as const;

/** A string of a closed set, as one `enum` (the serializer writes it without trying branches). */
const StringEnumOf = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

const OfficeHoursSchema = named('AgentOfficeHours', Type.Object({
  timezone: Type.String({ minLength: 1, maxLength: 100, description: 'An IANA time zone, e.g. `Europe/Helsinki`.' }),
  days: Type.Array(StringEnumOf(WEEKDAYS), { minItems: 1, maxItems: 7, description: 'The open days, each once.' }),
  open: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local opening time, HH:MM.', examples: ['09:00'] }),
  close: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local closing time, HH:MM, later than `open`.', examples: ['17:00'] }),
}, { additionalProperties: false }));

export const AgentHandoff = named('AgentHandoff', Type.Object({
  enabled: Type.Boolean({ description: 'Whether a visitor can ask for a person (the model gets `request_human`, the widget a control); off by default.' }),
  waitSeconds: Type.Integer({ description: 'How long a request waits for a person before the agent takes the chat back.' }),
  officeHours: Type.Union([OfficeHoursSchema, Type.Null()], { description: 'When a person may take over; null: always. Outside them a request is answered at once.' }),
}));
export type AgentHandoff = Static<typeof AgentHandoff>;

export const AgentHandoffPatch = named('AgentHandoffPatch', ChangesBody({
  enabled: Type.Boolean(),
  waitSeconds: Type.Integer({ minimum: HANDOFF_WAIT_SECONDS.min, maximum: HANDOFF_WAIT_SECONDS.max, description: `${HANDOFF_WAIT_SECONDS.min}–${HANDOFF_WAIT_SECONDS.max} seconds (default ${HANDOFF_WAIT_SECONDS.default}).` }),
  officeHours: Type.Union([OfficeHoursSchema, Type.Null()], { description: 'The whole office hours, or null for always open.' }),
}, { description: 'Hand-off settings: only the fields given change.' }));
export type AgentHandoffPatch = Static<typeof AgentHandoffPatch>;

export const Agent = named('Agent', Type.Object({
  id: Type.String({ description: '`agt_…`' }),
  name: Type.String(),
  branding: Branding,
  model: Type.Union([AgentModel, Type.Null()], { description: 'The model the agent talks with (its provider\'s key is never shown); null until one is set.' }),
  chat: AgentChat,
  handoff: AgentHandoff,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}));
export type Agent = Static<typeof Agent>;
export const AgentPage = Page(Agent);

export const AgentCreate = named('AgentCreate', Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'Internal name of the agent.' }), branding: BrandingInput },
  { additionalProperties: false },
));
export type AgentCreate = Static<typeof AgentCreate>;

export const AgentPatch = named('AgentPatch', ChangesBody({
  name: AgentCreate.properties.name,
  branding: BrandingPatch,
  model: Type.Union([AgentModelInput, Type.Null()], { description: 'The whole model at once (omitted optional fields take their defaults), or null to clear it. 404 NOT_FOUND when the provider is not your organization\'s.' }),
  chat: AgentChatPatch,
  handoff: AgentHandoffPatch,
}));
export type AgentPatch = Static<typeof AgentPatch>;

// ── Agent keys (MCP) ──

export const AgentKeyIdParams = Type.Object({
  id: IdParam('agt', agentNotFound, 'The agent id (`agt_…`).'),
  keyId: IdParam('akey', agentKeyNotFound, 'The agent key id (`akey_…`).'),
});

export const AgentKey = named('AgentKey', Type.Object({
  id: Type.String({ description: '`akey_…`' }),
  agentId: Type.String(),
  name: Type.String(),
  lastFour: Type.String({ description: 'The last four characters of the key, to tell keys apart.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Updated at most once a minute.' }),
}));
export type AgentKey = Static<typeof AgentKey>;
export const CreatedAgentKey = named(
  'CreatedAgentKey',
  Type.Intersect([AgentKey, Type.Object({ key: Type.String({ description: 'The key (`svc_agt_…`). Shown only in this response: store it now.' }) })]),
);
export type CreatedAgentKey = Static<typeof CreatedAgentKey>;
export const AgentKeyPage = Page(AgentKey);
export const AgentKeyCreate = named('AgentKeyCreate', Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "Claude Desktop".' }) },
  { additionalProperties: false },
));
