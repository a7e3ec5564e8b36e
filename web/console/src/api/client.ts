/**
 * The console's one client for Switchboard's JSON APIs (`/api/auth/*`, `/api/org/*`).
 * Same-origin cookie session; every change carries the session's CSRF token. A refusal or failure
 * becomes an ApiError whose `message` is the API's own `error`, shown to people as is.
 */

import type { components } from './schema';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  signal?: AbortSignal;
}

/** One field the API refused (`details` of a VALIDATION_ERROR), as schema.d.ts has it. */
export type ErrorDetail = components['schemas']['ErrorDetail'];

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The field at fault, as the API names it (`email`, `customFields`, `custom.insurer`…). */
  readonly field: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds to wait, from Retry-After (429). */
  readonly retryAfter: number | undefined;
  readonly requestId: string | undefined;
  /** Whatever else the error body carried, as sent: a tool call's `callId`, and for TOOL_HTTP_ERROR the endpoint's `status` and `body`. */
  readonly extra: Record<string, unknown>;

  constructor(init: {
    status: number; code: string; message: string; field?: string | undefined; details?: ErrorDetail[] | undefined;
    retryAfter?: number | undefined; requestId?: string | undefined; extra?: Record<string, unknown>;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.extra = init.extra ?? {};
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

export const MESSAGES = {
  network: 'We could not reach Switchboard. Check your connection and try again.',
  server: 'Something went wrong on our side. Please try again in a moment.',
  unreadable: (status: number) => `Switchboard answered in a way we did not expect (HTTP ${status}). Please try again.`,
};

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** `/api/org/forms` + `{limit: 20, q: ''}` → `/api/org/forms?limit=20` (empty and absent values left out). */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

/** Reads an answer: `{success: true, data}` gives data; anything else an ApiError carrying the API's message. */
export async function readAnswer<T>(res: Response): Promise<T> {
  type Body = { success?: unknown; data?: unknown; error?: unknown; code?: unknown; field?: unknown; details?: unknown; requestId?: unknown; [key: string]: unknown };
  let body = null as Body | null;
  try {
    const parsed: unknown = await res.json();
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Body;
  } catch {
    // An empty body, or a proxy's HTML page: judged by the status alone.
  }
  if (res.ok && body && body.success === true) return body.data as T;
  const status = res.status;
  const apiMessage = typeof body?.error === 'string' && body.error.trim() ? body.error : undefined;
  const code = typeof body?.code === 'string' ? body.code : status === 429 ? 'RATE_LIMIT_EXCEEDED' : status === 404 ? 'NOT_FOUND' : status >= 500 ? 'SERVER_ERROR' : 'UNEXPECTED_RESPONSE';
  const message = apiMessage ?? (status >= 500 ? MESSAGES.server : status === 404 ? 'Not found.' : MESSAGES.unreadable(status));
  const details = Array.isArray(body?.details)
    ? (body.details as unknown[]).filter((d): d is ErrorDetail => typeof d === 'object' && d !== null && typeof (d as ErrorDetail).message === 'string')
    : undefined;
  return Promise.reject(
    new ApiError({
      status,
      code,
      message,
      field: typeof body?.field === 'string' ? body.field : undefined,
      details,
      retryAfter: retryAfterSeconds(res.headers.get('Retry-After')),
      requestId: typeof body?.requestId === 'string' ? body.requestId : undefined,
      extra: extraFields(body),
    }),
  );
}

const ENVELOPE_FIELDS = new Set(['success', 'error', 'code', 'field', 'details', 'requestId']);

function extraFields(body: Record<string, unknown> | null): Record<string, unknown> {
  if (!body) return {};
  return Object.fromEntries(Object.entries(body).filter(([key]) => !ENVELOPE_FIELDS.has(key)));
}

export interface ClientOptions {
  fetch?: Fetch;
  /**
   * Fetches the browser's current session: its CSRF token and whose it is (`user id:org id`), or null.
   * Called once when a change is refused with 403: another tab may have signed in again, which gives this
   * browser a new session and token. The change is sent again only if the session is still the same
   * person's in the same organization.
   */
  refreshCsrfToken?: () => Promise<{ token: string; owner: string } | null>;
  /** Called when an `/api/org/*` request answers 401: the session ended (expired, revoked, signed out elsewhere). */
  onUnauthorized?: (error: ApiError) => void;
}

export function createClient(options: ClientOptions = {}) {
  const doFetch: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  let csrfToken: string | null = null;
  let owner: string | null = null;
  let onUnauthorized = options.onUnauthorized;

  async function request<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}, retried = false): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (!SAFE.has(method) && csrfToken) headers['X-CSRF-Token'] = csrfToken;
    let res: Response;
    try {
      res = await doFetch(withQuery(path, opts.query), {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? null : JSON.stringify(body),
        signal: opts.signal ?? null,
      });
    } catch (cause) {
      if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
      throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: MESSAGES.network });
    }
    try {
      return await readAnswer<T>(res);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && path.startsWith('/api/org/')) onUnauthorized?.(error);
      if (error instanceof ApiError && error.status === 403 && !SAFE.has(method) && !retried && csrfToken && options.refreshCsrfToken) {
        const fresh = await options.refreshCsrfToken().catch(() => null);
        if (fresh && fresh.token !== csrfToken && owner !== null && fresh.owner === owner) {
          csrfToken = fresh.token;
          return request<T>(method, path, body, opts, true);
        }
      }
      throw error;
    }
  }

  return {
    get: <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, undefined, opts),
    post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, body ?? {}, opts),
    patch: <T>(path: string, body: unknown, opts?: RequestOptions) => request<T>('PATCH', path, body, opts),
    put: <T>(path: string, body: unknown, opts?: RequestOptions) => request<T>('PUT', path, body, opts),
    delete: <T>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, undefined, opts),
    /** The session's CSRF token, from `/api/auth/session` and every sign-in answer, and whose session it is. */
    setCsrfToken(token: string | null, sessionOwner: string | null = null) {
      csrfToken = token;
      owner = token ? sessionOwner : null;
    },
    get csrfToken() {
      return csrfToken;
    },
    setOnUnauthorized(handler: ((error: ApiError) => void) | undefined) {
      onUnauthorized = handler;
    },
  };
}

export type ApiClient = ReturnType<typeof createClient>;

/** Whose session a CSRF token belongs to (a person without an organization: their id alone). */
export const sessionOwner = (userId: string, organizationId: string | null) => `${userId}:${organizationId ?? ''}`;

/** The console's client. */
export const api = createClient({
  refreshCsrfToken: async () => {
    const res = await fetch('/api/auth/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    type Answer = { success?: boolean; data?: { csrfToken?: unknown; user?: { id?: unknown }; organization?: { id?: unknown } | null } };
    const body = (await res.json().catch(() => null)) as Answer | null;
    const data = res.ok && body?.success ? body.data : undefined;
    if (!data || typeof data.csrfToken !== 'string') return null;
    return { token: data.csrfToken, owner: sessionOwner(String(data.user?.id), data.organization ? String(data.organization.id) : null) };
  },
});

/** Path segment from an id typed in a URL: encoded, so `../` never escapes the resource. */
export const seg = (id: string) => encodeURIComponent(id);
