import { describe, expect, it, vi } from 'vitest';
import { ApiError, createClient, MESSAGES, withQuery, type Fetch } from './client';

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

function recorder(answer: Response | (() => Promise<Response>)) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: Fetch = async (url, init) => {
    calls.push({ url, init });
    return typeof answer === 'function' ? answer() : answer;
  };
  return { calls, fetch };
}

describe('api client', () => {
  it('gives the data of a success envelope', async () => {
    const { fetch, calls } = recorder(json(200, { success: true, data: { id: 'frm_1' } }));
    const client = createClient({ fetch });
    await expect(client.get('/api/org/forms/frm_1')).resolves.toEqual({ id: 'frm_1' });
    expect(calls[0]!.init.credentials).toBe('same-origin');
    expect(calls[0]!.init.method).toBe('GET');
  });

  it('throws the API’s own message, code and field', async () => {
    const { fetch } = recorder(json(409, { success: false, error: 'This slug is taken: choose another.', code: 'CONFLICT', field: 'slug', requestId: 'req_1' }));
    const error = await createClient({ fetch }).post('/api/org/forms', { slug: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', message: 'This slug is taken: choose another.', field: 'slug', requestId: 'req_1' });
  });

  it('keeps validation details and reads Retry-After', async () => {
    const { fetch } = recorder(
      json(429, { success: false, error: 'Too many sign-in attempts. Try again in 60 seconds.', code: 'RATE_LIMIT_EXCEEDED' }, { 'Retry-After': '60' }),
    );
    const error = (await createClient({ fetch }).post('/api/auth/signin', {}).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe('Too many sign-in attempts. Try again in 60 seconds.');
    expect(error.retryAfter).toBe(60);
    const withDetails = recorder(json(400, { success: false, error: 'Invalid body.', code: 'VALIDATION_ERROR', details: [{ path: '/title', message: 'is required' }, 'junk'] }));
    const invalid = (await createClient({ fetch: withDetails.fetch }).post('/api/org/forms', {}).catch((e: unknown) => e)) as ApiError;
    expect(invalid.details).toEqual([{ path: '/title', message: 'is required' }]);
    expect(invalid.extra).toEqual({});
    // A failed tool call's own fields come through as sent.
    const toolFailure = recorder(json(502, { success: false, error: 'The endpoint answered 503.', code: 'TOOL_HTTP_ERROR', callId: 'call_1', status: 503, body: { error: 'down' } }));
    const failed = (await createClient({ fetch: toolFailure.fetch }).post('/api/org/agents/agt_1/tool-calls', {}).catch((e: unknown) => e)) as ApiError;
    expect(failed.extra).toEqual({ callId: 'call_1', status: 503, body: { error: 'down' } });
  });

  it('explains a failure without a JSON body by its status', async () => {
    const html = () => Promise.resolve(new Response('<html>Bad gateway</html>', { status: 502 }));
    const error = (await createClient({ fetch: recorder(html).fetch }).get('/api/org/forms').catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 502, code: 'SERVER_ERROR', message: MESSAGES.server });
    const notFound = (await createClient({ fetch: recorder(new Response('', { status: 404 })).fetch }).get('/x').catch((e: unknown) => e)) as ApiError;
    expect(notFound).toMatchObject({ status: 404, code: 'NOT_FOUND', notFound: true });
  });

  it('turns a network failure into NETWORK_ERROR', async () => {
    const fetch: Fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const error = (await createClient({ fetch }).get('/api/org/forms').catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 0, code: 'NETWORK_ERROR', message: MESSAGES.network });
  });

  it('sends the CSRF token on changes only, and JSON bodies', async () => {
    const { fetch, calls } = recorder(() => Promise.resolve(json(200, { success: true, data: {} })));
    const client = createClient({ fetch });
    client.setCsrfToken('tok');
    await client.get('/api/org/forms');
    await client.patch('/api/org/forms/frm_1', { active: false });
    await client.delete('/api/org/forms/frm_1');
    await client.post('/api/auth/signout');
    const headers = calls.map((call) => call.init.headers as Record<string, string>);
    expect(headers[0]!['X-CSRF-Token']).toBeUndefined();
    expect(headers[1]!['X-CSRF-Token']).toBe('tok');
    expect(headers[1]!['Content-Type']).toBe('application/json');
    expect(calls[1]!.init.body).toBe('{"active":false}');
    expect(headers[2]!['X-CSRF-Token']).toBe('tok');
    expect(calls[2]!.init.body).toBeNull();
    expect(calls[3]!.init.body).toBe('{}');
  });

  it('retries a refused change once with a fresh CSRF token, and only when the token changed', async () => {
    const answers = [json(403, { success: false, error: 'Missing or invalid CSRF token.', code: 'FORBIDDEN' }), json(200, { success: true, data: { ok: 1 } })];
    const { fetch, calls } = recorder(() => Promise.resolve(answers.shift()!));
    const client = createClient({ fetch, refreshCsrfToken: async () => ({ token: 'new', owner: 'usr_1:org_1' }) });
    client.setCsrfToken('old', 'usr_1:org_1');
    await expect(client.patch('/api/org/forms/frm_1', { active: true })).resolves.toEqual({ ok: 1 });
    expect(calls.map((c) => (c.init.headers as Record<string, string>)['X-CSRF-Token'])).toEqual(['old', 'new']);

    const forbidden = recorder(() => Promise.resolve(json(403, { success: false, error: 'Only owners can manage API keys.', code: 'FORBIDDEN' })));
    const same = createClient({ fetch: forbidden.fetch, refreshCsrfToken: async () => ({ token: 'tok', owner: 'usr_1:org_1' }) });
    same.setCsrfToken('tok', 'usr_1:org_1');
    await expect(same.post('/api/org/api-keys', { name: 'x' })).rejects.toMatchObject({ status: 403, message: 'Only owners can manage API keys.' });
    expect(forbidden.calls).toHaveLength(1);

    // Someone else signed in from another tab: the change is not sent on their behalf.
    const other = recorder(() => Promise.resolve(json(403, { success: false, error: 'Missing or invalid CSRF token.', code: 'FORBIDDEN' })));
    const switched = createClient({ fetch: other.fetch, refreshCsrfToken: async () => ({ token: 'theirs', owner: 'usr_2:org_2' }) });
    switched.setCsrfToken('mine', 'usr_1:org_1');
    await expect(switched.post('/api/org/forms', {})).rejects.toMatchObject({ status: 403 });
    expect(other.calls).toHaveLength(1);
  });

  it('reports a 401 of the Operator API as an ended session, not one of the auth API', async () => {
    const onUnauthorized = vi.fn();
    const { fetch } = recorder(() => Promise.resolve(json(401, { success: false, error: 'Sign in first.', code: 'UNAUTHORIZED' })));
    const client = createClient({ fetch, onUnauthorized });
    await client.post('/api/auth/signout').catch(() => undefined);
    expect(onUnauthorized).not.toHaveBeenCalled();
    await client.get('/api/org/forms').catch(() => undefined);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });
});

describe('withQuery', () => {
  it('leaves out empty values and encodes the rest', () => {
    expect(withQuery('/api/org/contacts', { q: 'a&b', email: '', cursor: undefined, limit: 20 })).toBe('/api/org/contacts?q=a%26b&limit=20');
    expect(withQuery('/x', {})).toBe('/x');
  });
});
