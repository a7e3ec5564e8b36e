import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { wrapLanguageModel } from 'ai';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
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

  const guardedFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new ProviderTimeoutError(options.timeoutMs)), options.timeoutMs);
    timer.unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    try {
      // undici's request, not its fetch: the same connection pool and connector, without fetch's WHATWG machinery.
      // To the bench model (bench/model-server.ts), one streamed request read to its end: p50 0.27 ms through
      // fetch with a TransformStream, 0.08 ms this way — on every model request of every turn.
      // Redirects are not followed (request never does), so a 3xx comes back as it is.
      const response = await agent.request({
        origin: url.origin, path: url.pathname + url.search, method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: headerRecord(init?.headers), body: requestBody(init?.body), signal,
      });
      // The body is read after this returns: the deadline stays armed until it ends, then the timer is cleared.
      response.body.once('close', () => clearTimeout(timer));
      const empty = response.statusCode === 204 || response.statusCode === 304 || init?.method === 'HEAD';
      if (empty) response.body.resume();
      return new Response(empty ? null : (Readable.toWeb(response.body) as ReadableStream), { status: response.statusCode, headers: responseHeaders(response.headers) });
    } catch (error) {
      clearTimeout(timer);
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (init?.signal?.aborted) throw init.signal.reason;
      // As fetch fails, so the SDK sees a network failure as one (with undici's error and its code as the cause).
      throw new TypeError('fetch failed', { cause: error });
    }
  }) as typeof globalThis.fetch;

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

/** The request's headers as undici takes them (the SDK passes a plain record; Headers and pairs are handled too). */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers).entries());
  return headers as Record<string, string>;
}

/** The SDK sends JSON text (or form data for uploads, which conversations never make). */
function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('The model client sends text or bytes only.');
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}
