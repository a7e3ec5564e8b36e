import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { idPattern } from '../lib/ids.js';
import { StringEnum } from '../tools/schema.js';
import { providerNotFound } from './errors.js';

/** Wire schemas of model providers (`/api/org/model-providers`) and of an agent's model. */

export const PROVIDER_KINDS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export const ProviderIdParams = Type.Object({ provider_id: IdParam('mp', providerNotFound, 'The model provider id (`mp_…`).') });
export const ProviderPageQuery = Type.Object(ListQuery, { additionalProperties: false });

const Name = Type.String({ minLength: 1, maxLength: 100, description: 'What operators call it, e.g. "OpenAI (production)".' });
const Kind = StringEnum(PROVIDER_KINDS, { description: '`openai-compatible`: any Chat Completions server (Azure OpenAI, OpenRouter, Groq, vLLM, Ollama, llama.cpp…).' });
const BaseUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https://, public, no user name, query or fragment. Default: https://api.openai.com/v1 (`openai`), https://api.anthropic.com/v1 (`anthropic`); required for `openai-compatible`. MODEL_ALLOW_PRIVATE_ENDPOINTS=1 (development) also allows private addresses and http:// to a local server.',
  examples: ['https://api.openai.com/v1'],
});
// Printable ASCII only: the key goes into an HTTP header, and a space or line break in it is a paste mistake.
const ApiKey = Type.String({
  minLength: 1,
  maxLength: 1000,
  pattern: '^[!-~]+$',
  errorMessage: 'must be the key as the provider shows it: printable characters, no spaces',
  description: 'The provider\'s API key. Write-only: stored encrypted, never returned (answers say `hasApiKey`).',
});

export const ModelProvider = named('ModelProvider', Type.Object({
  id: Type.String({ description: '`mp_…`' }),
  name: Type.String(),
  kind: Kind,
  baseUrl: Type.String({ description: 'Without a trailing slash.' }),
  hasApiKey: Type.Boolean({ description: 'Whether a key is stored. The key itself is never returned.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}));
export type ModelProvider = Static<typeof ModelProvider>;
export const ModelProviderPage = Page(ModelProvider);

export const ModelProviderCreate = named('ModelProviderCreate', Type.Object(
  { name: Name, kind: Kind, baseUrl: Type.Optional(BaseUrl), apiKey: Type.Optional(ApiKey) },
  { additionalProperties: false },
));
export type ModelProviderCreate = Static<typeof ModelProviderCreate>;

export const ModelProviderPatch = named('ModelProviderPatch', ChangesBody({
  name: Name,
  kind: Kind,
  baseUrl: BaseUrl,
  apiKey: Type.Union([ApiKey, Type.Null()], { description: 'A new key, or null to remove the stored one. Changing `baseUrl` or `kind` of a provider with a key needs this too: the stored key is never sent to a server it was not given for.' }),
}));
export type ModelProviderPatch = Static<typeof ModelProviderPatch>;

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
