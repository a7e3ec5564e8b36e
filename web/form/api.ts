import type { PublicFormConfig, SubmitResult } from './types.js';

/** A refusal or failure as the form shows it. `code` is the API's, or NETWORK_ERROR / SERVER_ERROR. */
export interface Failure {
  code: string;
  message: string;
  /** The field at fault, as the API names it: `email`, `custom.<key>`, `consentVersion`. */
  field?: string;
  status: number;
  /** Seconds to wait, from Retry-After, for RATE_LIMIT_EXCEEDED. */
  retryAfter?: number;
}

export type Outcome<T> = { ok: true; data: T } | ({ ok: false } & Failure);

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export const MESSAGES = {
  network: 'We could not reach the server. Check your connection and try again.',
  server: 'Something went wrong on our side. Please try again in a moment.',
  notFound: 'This form is not available.',
  rateLimit: (seconds?: number) =>
    `Too many attempts from your connection. Please wait ${seconds ? (seconds === 1 ? '1 second' : `${seconds} seconds`) : 'a minute'} and try again.`,
};

function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** Reads an API answer: `{success: true, data}`, or a Failure with the visitor-facing message. */
export async function readAnswer<T>(res: Response): Promise<Outcome<T>> {
  let body = null as { success?: unknown; data?: unknown; error?: unknown; code?: unknown; field?: unknown } | null;
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // A proxy's HTML page or an empty body: judged by the status alone.
  }
  if (res.ok && body?.success === true) return { ok: true, data: body.data as T };
  const status = res.status;
  const code = typeof body?.code === 'string' ? body.code : status === 429 ? 'RATE_LIMIT_EXCEEDED' : status === 404 ? 'FORM_NOT_FOUND' : 'SERVER_ERROR';
  const failure: Failure = { code, status, message: typeof body?.error === 'string' && status < 500 ? body.error : MESSAGES.server };
  if (typeof body?.field === 'string') failure.field = body.field;
  if (code === 'RATE_LIMIT_EXCEEDED') {
    failure.retryAfter = retryAfterSeconds(res.headers.get('Retry-After'));
    failure.message = MESSAGES.rateLimit(failure.retryAfter);
  }
  if (code === 'FORM_NOT_FOUND') failure.message = MESSAGES.notFound;
  return { ok: false, ...failure };
}

async function call<T>(doFetch: Fetch, url: string, init?: RequestInit): Promise<Outcome<T>> {
  let res: Response;
  try {
    res = await doFetch(url, init);
  } catch {
    return { ok: false, code: 'NETWORK_ERROR', status: 0, message: MESSAGES.network };
  }
  return readAnswer<T>(res);
}

const formUrl = (apiBase: string, slug: string) => `${apiBase.replace(/\/+$/, '')}/api/public/forms/${encodeURIComponent(slug)}`;

export function getConfig(doFetch: Fetch, apiBase: string, slug: string): Promise<Outcome<PublicFormConfig>> {
  // Credentials are never needed and never sent: the API answers `*` without credentials.
  return call(doFetch, formUrl(apiBase, slug), { credentials: 'omit' });
}

export function postLead(doFetch: Fetch, apiBase: string, slug: string, body: string, idempotencyKey: string): Promise<Outcome<SubmitResult>> {
  return call(doFetch, `${formUrl(apiBase, slug)}/submit`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body,
    credentials: 'omit',
  });
}

