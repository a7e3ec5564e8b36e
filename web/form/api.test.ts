import { describe, expect, it } from 'vitest';
import { getConfig, MESSAGES, postLead, type Fetch } from './api.js';

/** Records each request and answers with the next of `answers` (a Response, or an Error to throw). */
function recorder(...answers: (Response | Error)[]) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const doFetch: Fetch = async (url, init) => {
    calls.push({ url, init });
    const answer = answers.shift();
    if (!answer || answer instanceof Error) throw answer ?? new Error('no answer left');
    return answer;
  };
  return { calls, doFetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe('the public Forms API client', () => {
  it('posts JSON with the Idempotency-Key, without credentials', async () => {
    const { calls, doFetch } = recorder(json(200, { success: true, data: { ok: true, successMessage: 'Thanks', redirectUrl: null } }));
    const outcome = await postLead(doFetch, 'https://forms.example/', 'book-a-visit', '{"consentVersion":"1"}', 'key-1');
    expect(outcome).toEqual({ ok: true, data: { ok: true, successMessage: 'Thanks', redirectUrl: null } });
    expect(calls).toEqual([
      {
        url: 'https://forms.example/api/public/forms/book-a-visit/submit',
        init: { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'key-1' }, body: '{"consentVersion":"1"}', credentials: 'omit' },
      },
    ]);
  });

  it('reads the config from the same base', async () => {
    const { calls, doFetch } = recorder(json(200, { success: true, data: { slug: 'x' } }));
    await getConfig(doFetch, '', 'book-a-visit');
    expect(calls[0]!.url).toBe('/api/public/forms/book-a-visit');
  });

  it('gives a refusal its code, field and the API message', async () => {
    const { doFetch } = recorder(
      json(400, { success: false, error: 'Please enter a valid email address.', code: 'INVALID_FIELD', field: 'email', requestId: 'req_1' }),
    );
    expect(await postLead(doFetch, '', 'f-1', '{}', 'k')).toEqual({ ok: false, code: 'INVALID_FIELD', field: 'email', status: 400, message: 'Please enter a valid email address.' });
  });

  it('says plainly to wait on 429, with Retry-After seconds when present', async () => {
    const { doFetch } = recorder(
      json(429, { success: false, error: 'Too many requests.', code: 'RATE_LIMIT_EXCEEDED' }, { 'Retry-After': '37' }),
      new Response('', { status: 429 }),
    );
    const first = await postLead(doFetch, '', 'f-1', '{}', 'k');
    expect(first).toMatchObject({ ok: false, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 37 });
    expect(!first.ok && first.message).toBe('Too many attempts from your connection. Please wait 37 seconds and try again.');
    const second = await postLead(doFetch, '', 'f-1', '{}', 'k');
    expect(!second.ok && second.message).toBe('Too many attempts from your connection. Please wait a minute and try again.');
  });

  it('turns a network failure and a 5xx (even an HTML one) into messages the visitor can act on', async () => {
    const { doFetch } = recorder(new TypeError('Failed to fetch'), new Response('<html>Bad gateway</html>', { status: 502 }));
    expect(await postLead(doFetch, '', 'f-1', '{}', 'k')).toEqual({ ok: false, code: 'NETWORK_ERROR', status: 0, message: MESSAGES.network });
    expect(await postLead(doFetch, '', 'f-1', '{}', 'k')).toEqual({ ok: false, code: 'SERVER_ERROR', status: 502, message: MESSAGES.server });
  });

  it('never shows a 5xx body to the visitor, and treats a 200 without success as a failure', async () => {
    const { doFetch } = recorder(json(500, { success: false, error: 'internal detail', code: 'INTERNAL' }), json(200, { ok: true }));
    expect(await postLead(doFetch, '', 'f-1', '{}', 'k')).toMatchObject({ ok: false, code: 'INTERNAL', message: MESSAGES.server });
    expect(await postLead(doFetch, '', 'f-1', '{}', 'k')).toMatchObject({ ok: false, code: 'SERVER_ERROR', status: 200 });
  });

  it('says the form is unavailable on FORM_NOT_FOUND', async () => {
    const { doFetch } = recorder(json(404, { success: false, error: 'No form here.', code: 'FORM_NOT_FOUND' }));
    expect(await getConfig(doFetch, '', 'gone')).toMatchObject({ ok: false, code: 'FORM_NOT_FOUND', message: MESSAGES.notFound });
  });
});
