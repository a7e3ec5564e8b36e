import { Readable, Transform } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';

/**
 * A `fetch` for libraries that take one (the AI SDK's providers, oauth4webapi) over an undici Agent whose connector
 * is the tool calls' (http-client.ts `createGuardedConnector`): every address dialled is checked at connect time.
 * Redirects are never followed (undici's `request` does not), so a 3xx comes back as it is. Each request has its own
 * deadline, covering a streamed body too; `timeoutError` is what a request that passed it rejects with.
 *
 * undici's request, not its fetch: the same connection pool and connector, without fetch's WHATWG machinery. To the
 * bench model (bench/model-server.ts), one streamed request read to its end: p50 0.27 ms through fetch with a
 * TransformStream, 0.08 ms this way — on every model request of every turn.
 */
export interface GuardedFetchOptions {
  timeoutMs: number;
  timeoutError: () => Error;
  /** A body longer than this errors when read (the reader sees a failed fetch); no cap when left out (a model's stream). */
  maxResponseBytes?: number;
}

export function createGuardedFetch(agent: Agent, options: GuardedFetchOptions): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(options.timeoutError()), options.timeoutMs);
    timer.unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    try {
      const response = await agent.request({
        origin: url.origin, path: url.pathname + url.search, method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: headerRecord(init?.headers), body: requestBody(init?.body), signal,
      });
      // The body is read after this returns: the deadline stays armed until it ends, then the timer is cleared.
      response.body.once('close', () => clearTimeout(timer));
      const empty = response.statusCode === 204 || response.statusCode === 304 || init?.method === 'HEAD';
      if (empty) response.body.resume();
      const body = options.maxResponseBytes === undefined ? response.body : response.body.pipe(capped(options.maxResponseBytes));
      return new Response(empty ? null : (Readable.toWeb(body) as ReadableStream), { status: response.statusCode, headers: responseHeaders(response.headers) });
    } catch (error) {
      clearTimeout(timer);
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (init?.signal?.aborted) throw init.signal.reason;
      // As fetch fails, so the caller sees a network failure as one (with undici's error and its code as the cause).
      throw new TypeError('fetch failed', { cause: error });
    }
  }) as typeof globalThis.fetch;
}

/** Passes at most `max` bytes, then fails the stream: memory stays bounded whatever the server sends. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(new TypeError(`The answer is larger than ${max} bytes.`));
      else callback(null, chunk);
    },
  });
}

/** The request's headers as undici takes them (a plain record; Headers and pairs are handled too). */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers).entries());
  return headers as Record<string, string>;
}

/** JSON text (the model SDKs), a form (oauth4webapi), or bytes; never a stream. */
function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('The guarded fetch sends text, forms or bytes only.');
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}
