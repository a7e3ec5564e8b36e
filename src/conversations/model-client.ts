import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { wrapLanguageModel } from 'ai';
import { Agent } from 'undici';
import { createGuardedFetch } from '../net/guarded-fetch.js';
import { createGuardedConnector } from '../net/http-client.js';
import type { ProviderConnection } from '../models/service.js';
import type { HostResolver } from '../net/resolver.js';

/**
 * The one way to a model provider. The AI SDK speaks each provider's wire format; its `fetch` goes
 * through an undici Agent whose connector is the tool calls' own (net/http-client.ts
 * `createGuardedConnector`): every address dialled is checked at connect time, so a base URL that
 * resolved to a public address when it was saved and to an internal one now is refused before a
 * socket exists. MODEL_ALLOW_PRIVATE_ENDPOINTS decides private addresses (and plain http:// to a
 * local server, which base-url.ts admitted only for local hosts). Redirects are not followed (the
 * key would follow them). Each request has its own deadline, MODEL_TIMEOUT_MS, covering a streamed
 * body too. The key is handed to the SDK, which sends it as a header; nothing here logs it.
 */

/** The deadline of one provider request passed; recognised by name (`TimeoutError`) so the SDK rethrows it as is. */
export class ProviderTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`The model provider did not answer within ${timeoutMs / 1000} s.`);
  }
}

export interface ModelClientOptions {
  allowPrivate: boolean;
  resolver: HostResolver;
  /** MODEL_TIMEOUT_MS. */
  timeoutMs: number;
  connectTimeoutMs?: number;
}

/** A provider's model as the AI SDK's providers make it (LanguageModelV3, which `ai` does not export by name): what middleware wraps. */
export type ProviderModel = Parameters<typeof wrapLanguageModel>[0]['model'];

export interface ModelClient {
  /** The AI SDK model for the provider's `model` id: Chat Completions for openai and openai-compatible, Messages for anthropic. */
  model(connection: ProviderConnection, modelId: string): ProviderModel;
  close(): Promise<void>;
}

/** Connecting has its own shorter limit, as for tool calls. */
const CONNECT_TIMEOUT_MS = 5000;

export function createModelClient(options: ModelClientOptions): ModelClient {
  // The SDK prints its warnings (an unknown model's defaults, an unsupported setting) with console.warn, outside
  // the server's structured log, on every request: off. Its one switch is this global.
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;
  const agent = new Agent({
    connect: createGuardedConnector({ allowPrivate: options.allowPrivate, resolver: options.resolver, connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  const guardedFetch = createGuardedFetch(agent, { timeoutMs: options.timeoutMs, timeoutError: () => new ProviderTimeoutError(options.timeoutMs) });

  function model(connection: ProviderConnection, modelId: string): ProviderModel {
    const common = { baseURL: connection.baseUrl, fetch: guardedFetch };
    switch (connection.kind) {
      case 'openai':
        // Chat Completions, the API every openai-compatible server also speaks (the SDK's default is the Responses API).
        return createOpenAI({ ...common, apiKey: connection.apiKey ?? '' }).chat(modelId);
      case 'anthropic':
        return createAnthropic({ ...common, apiKey: connection.apiKey ?? '' })(modelId);
      case 'openai-compatible':
        return createOpenAICompatible({ ...common, name: 'openai-compatible', ...(connection.apiKey !== undefined ? { apiKey: connection.apiKey } : {}), includeUsage: true }).chatModel(modelId);
    }
  }

  return { model, close: () => agent.close() };
}
