import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { StringEnum } from '../tools/schema.js';
import { providerNotFound } from './errors.js';

/** Wire schemas of model providers (`/api/org/model-providers`); an agent's model is the agent's (orgs/schema.ts). */

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
