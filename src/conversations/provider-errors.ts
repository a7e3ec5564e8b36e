import { APICallError } from 'ai';
import { STATUS_CODES } from 'node:http';
import { BlockedAddressError } from '../net/http-client.js';
import { ProviderTimeoutError } from './model-client.js';

/** A provider failure in our words: one of the MODEL_PROVIDER_* codes, the provider's own message, never the key. */
export interface ProviderFailure {
  code: 'MODEL_PROVIDER_ERROR' | 'MODEL_PROVIDER_RATE_LIMITED' | 'MODEL_PROVIDER_TIMEOUT';
  message: string;
  /** The provider's Retry-After (seconds or an HTTP date), passed on with a 429. */
  retryAfter?: string;
  /**
   * For the log only, when `message` is a sentence of ours that hides it: what the SDK or the runtime said
   * (its class and message, key redacted). A caller never sees it.
   */
  detail?: string;
}

/** A provider's message is shown, not a whole error page. */
const MAX_MESSAGE_CHARS = 500;

/** The error and what it wraps (RetryError.lastError, cause, AggregateError.errors), outermost first. */
function chain(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && seen.length < 10) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.includes(next)) continue;
    seen.push(next);
    const e = next as { lastError?: unknown; cause?: unknown; errors?: unknown[] };
    queue.push(e.lastError, e.cause, ...(Array.isArray(e.errors) ? e.errors : []));
  }
  return seen;
}

function redacted(text: string, secret: string | undefined): string {
  let out = text.replace(/\s+/g, ' ').trim();
  if (secret) out = out.split(secret).join('[redacted]');
  return out.length > MAX_MESSAGE_CHARS ? `${out.slice(0, MAX_MESSAGE_CHARS)}…` : out;
}

const RETRY_AFTER = /^(\d{1,6}|[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)$/;

export function providerFailure(error: unknown, apiKey: string | undefined): ProviderFailure {
  const causes = chain(error);
  const timeout = causes.find((e): e is ProviderTimeoutError => e instanceof ProviderTimeoutError);
  if (timeout) return { code: 'MODEL_PROVIDER_TIMEOUT', message: timeout.message };
  const blocked = causes.find((e): e is BlockedAddressError => e instanceof BlockedAddressError);
  if (blocked) {
    return { code: 'MODEL_PROVIDER_ERROR', message: `The model provider's base URL points to ${blocked.verdict.address}, an address that is not public. Model providers must be public (MODEL_ALLOW_PRIVATE_ENDPOINTS=1 allows a local server in development). No request was sent.` };
  }
  const api = causes.find((e): e is APICallError => APICallError.isInstance(e));
  if (api?.statusCode !== undefined) {
    const status = api.statusCode;
    const said = redacted(api.message, apiKey);
    const head = `The model provider answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
    if (status === 429) {
      const retryAfter = api.responseHeaders?.['retry-after']?.trim();
      return { code: 'MODEL_PROVIDER_RATE_LIMITED', message: `${head}: ${said}`, ...(retryAfter && RETRY_AFTER.test(retryAfter) ? { retryAfter } : {}) };
    }
    const hint = status === 401 || status === 403 ? ' Check the provider\'s API key (PATCH /api/org/model-providers/{id}).' : status === 404 ? ' Check the agent\'s model id and the provider\'s base URL.' : '';
    return { code: 'MODEL_PROVIDER_ERROR', message: `${head}: ${said}${hint}` };
  }
  const transport = causes.map((e) => (e as { code?: unknown }).code).find((code): code is string => typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code));
  if (transport) return { code: 'MODEL_PROVIDER_ERROR', message: `The model provider could not be reached (${transport}).` };
  // Anything else is an answer the SDK could not use (not in the provider API's shape, cut short) or an exception
  // while reading it: said in our words, never the exception's (it can name our internals); the log has it.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: 'MODEL_PROVIDER_ERROR', message: 'The model provider\'s answer could not be read. Try again; if it keeps happening, check the provider\'s base URL and the agent\'s model id.', detail: redacted(detail, apiKey) };
}
