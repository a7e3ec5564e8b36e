import { describe, expect, it } from 'vitest';
import { baseOf, chatApi, MESSAGES, type Fetch } from './api.js';
import type { ChatEvent } from './types.js';

type Call = { url: string; init: RequestInit | undefined };

function fakeFetch(answer: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const doFetch: Fetch = async (url, init) => {
    const call = { url, init };
    calls.push(call);
    return answer(call);
  };
  return { calls, doFetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const events = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
const handlers = () => {
  const seen: ChatEvent[] = [];
  let opened = 0;
  return { seen, get opened() { return opened; }, open: () => void opened++, events: (e: ChatEvent[]) => void seen.push(...e) };
};

describe('baseOf', () => {
  it('is the script\'s address without its own name, query or hash', () => {
    expect(baseOf('https://svc.example/chat-embed.js')).toBe('https://svc.example');
    expect(baseOf('https://svc.example:8443/chat-embed.0123456789ab.js?v=2')).toBe('https://svc.example:8443');
    expect(baseOf('https://example.com/switchboard/chat-embed.js')).toBe('https://example.com/switchboard');
  });
});

describe('chatApi', () => {
  it('calls the documented paths, with the token as a Bearer header and never a cookie', async () => {
    const { calls, doFetch } = fakeFetch((call) =>
      call.url.endsWith('/messages') ? events('event: finish\ndata: {"status":"completed"}\n\n') : json(200, { success: true, data: { ok: 1 } }),
    );
    const api = chatApi('https://svc.example/', 'chat_abc', doFetch);
    expect(await api.config()).toEqual({ ok: true, data: { ok: 1 } });
    await api.startSession({ pageUrl: 'https://shop.example/p', utm: { source: 'news' } });
    await api.history('chs_1');
    const h = handlers();
    expect(await api.send('chs_1', 'Hello', h)).toEqual({ ok: true, data: null });
    expect(h.opened).toBe(1);
    expect(h.seen).toEqual([{ type: 'finish', status: 'completed' }]);
    expect(calls.map((c) => [c.init?.method ?? 'GET', c.url])).toEqual([
      ['GET', 'https://svc.example/api/public/chats/chat_abc'],
      ['POST', 'https://svc.example/api/public/chats/chat_abc/sessions'],
      ['GET', 'https://svc.example/api/public/chats/chat_abc/session'],
      ['POST', 'https://svc.example/api/public/chats/chat_abc/session/messages'],
    ]);
    for (const call of calls) expect(call.init?.credentials).toBe('omit');
    expect(JSON.parse(String(calls[1]!.init?.body))).toEqual({ pageUrl: 'https://shop.example/p', utm: { source: 'news' } });
    expect(calls[2]!.init?.headers).toEqual({ Authorization: 'Bearer chs_1' });
    expect(calls[3]!.init?.headers).toEqual({ Authorization: 'Bearer chs_1', 'Content-Type': 'application/json', Accept: 'text/event-stream' });
    expect(JSON.parse(String(calls[3]!.init?.body))).toEqual({ content: 'Hello' });
  });

  it('turns refusals into short kind messages, never a server\'s internals', async () => {
    const cases: Array<[Response | Error, Partial<{ code: string; status: number; message: string }>]> = [
      [json(403, { success: false, code: 'FORBIDDEN', error: 'Origin https://evil.example is not allowed for chat_abc.' }), { code: 'FORBIDDEN', status: 403, message: MESSAGES.unavailable }],
      [json(404, { success: false, code: 'NOT_FOUND', error: 'No such chat.' }), { code: 'NOT_FOUND', message: MESSAGES.unavailable }],
      [json(429, { success: false, code: 'RATE_LIMIT_EXCEEDED', error: 'This chat has reached its limit for today. Please come back tomorrow.' }), { message: 'This chat has reached its limit for today. Please come back tomorrow.' }],
      [new Response('', { status: 429, headers: { 'Retry-After': '30' } }), { code: 'RATE_LIMIT_EXCEEDED', message: MESSAGES.rateLimit(30) }],
      [json(500, { success: false, code: 'INTERNAL_ERROR', error: 'TypeError: cannot read x of undefined at /srv/app.js:1' }), { code: 'INTERNAL_ERROR', message: MESSAGES.server }],
      [new Response('<html>Bad gateway</html>', { status: 502 }), { code: 'SERVER_ERROR', status: 502, message: MESSAGES.server }],
      [json(401, { success: false, code: 'UNAUTHORIZED', error: 'This chat session has ended. Start a new chat.' }), { code: 'UNAUTHORIZED', status: 401 }],
      [new TypeError('Failed to fetch'), { code: 'NETWORK_ERROR', status: 0, message: MESSAGES.network }],
    ];
    for (const [answer, expected] of cases) {
      const { doFetch } = fakeFetch(() => {
        if (answer instanceof Error) throw answer;
        return answer.clone();
      });
      const api = chatApi('https://svc.example', 'chat_abc', doFetch);
      const h = handlers();
      for (const outcome of [await api.config(), await api.send('chs_1', 'Hi', h)]) expect(outcome).toMatchObject({ ok: false, ...expected });
      expect(h.opened).toBe(0);
    }
  });

  it('reads a refused lead\'s field errors, whichever shape carries them', async () => {
    const bodies = [
      { success: false, code: 'VALIDATION_ERROR', error: 'Check the highlighted fields.', fields: [{ field: 'email', message: 'Enter a valid email.' }, { field: 'consentVersion', message: 'Please agree.' }] },
      { success: false, code: 'VALIDATION_ERROR', error: 'Check the highlighted fields.', fields: { email: 'Enter a valid email.', consent: 'Please agree.' } },
    ];
    for (const body of bodies) {
      const { doFetch } = fakeFetch(() => json(400, body));
      const outcome = await chatApi('https://svc.example', 'chat_abc', doFetch).lead('chs_1', { toolCallId: 'call_1', action: 'submit', values: {}, consent: false }, handlers());
      expect(outcome).toEqual({ ok: false, code: 'VALIDATION_ERROR', status: 400, message: 'Check the highlighted fields.', fields: { email: 'Enter a valid email.', consent: 'Please agree.' } });
    }
    const { doFetch } = fakeFetch(() => json(400, { success: false, code: 'INVALID_FIELD', error: 'Enter a valid phone number.', field: 'phone' }));
    const outcome = await chatApi('https://svc.example', 'chat_abc', doFetch).lead('chs_1', { toolCallId: 'call_1', action: 'submit' }, handlers());
    expect(outcome).toMatchObject({ fields: { phone: 'Enter a valid phone number.' } });
  });

  it('asks for a person with an empty POST, and reads the live stream with a GET that sends the token and the last event id itself', async () => {
    const { calls, doFetch } = fakeFetch((call) =>
      call.url.endsWith('/events') ? events('id: msg_9\nevent: message\ndata: {"id":"msg_9","role":"operator","content":"Hello","author":{"name":"Anna"}}\n\n') : json(200, { success: true, data: { status: 'waiting', message: 'A person will be with you shortly.' } }),
    );
    const api = chatApi('https://svc.example', 'chat_abc', doFetch);
    expect(await api.handoff('chs_1')).toEqual({ ok: true, data: { status: 'waiting', message: 'A person will be with you shortly.' } });
    const abort = new AbortController();
    const h = { ...handlers(), reads: 0, read() {
      this.reads++;
    } };
    expect(await api.live('chs_1', 'msg_8', abort.signal, h)).toEqual({ ok: true, data: null });
    expect(h.seen).toEqual([{ type: 'message', id: 'msg_9', role: 'operator', content: 'Hello', author: { name: 'Anna' }, lastEventId: 'msg_9' }]);
    expect(h.reads).toBe(1);
    await api.live('chs_1', undefined, abort.signal, h);
    expect(calls.map((c) => [c.init?.method ?? 'GET', c.url])).toEqual([
      ['POST', 'https://svc.example/api/public/chats/chat_abc/session/handoff'],
      ['GET', 'https://svc.example/api/public/chats/chat_abc/session/events'],
      ['GET', 'https://svc.example/api/public/chats/chat_abc/session/events'],
    ]);
    expect(calls[0]!.init).toEqual({ method: 'POST', headers: { Authorization: 'Bearer chs_1' }, credentials: 'omit' });
    expect(calls[1]!.init).toEqual({ headers: { Authorization: 'Bearer chs_1', Accept: 'text/event-stream', 'Last-Event-ID': 'msg_8' }, credentials: 'omit', signal: abort.signal });
    expect(calls[2]!.init?.headers).toEqual({ Authorization: 'Bearer chs_1', Accept: 'text/event-stream' });
  });

  it('says a refused hand-off in the server\'s words, and reports a refused or aborted live stream', async () => {
    const busy = fakeFetch(() => json(409, { success: false, code: 'CONFLICT', error: 'A person has already been asked for.' }));
    expect(await chatApi('https://svc.example', 'chat_abc', busy.doFetch).handoff('chs_1')).toEqual({ ok: false, code: 'CONFLICT', status: 409, message: 'A person has already been asked for.' });
    const gone = fakeFetch(() => json(401, { success: false, code: 'UNAUTHORIZED', error: 'This chat session has ended.' }));
    const h = { ...handlers(), read() {} };
    expect(await chatApi('https://svc.example', 'chat_abc', gone.doFetch).live('chs_1', undefined, new AbortController().signal, h)).toMatchObject({ ok: false, status: 401 });
    // An abort (the widget closing the stream) rejects the fetch: a network failure, which the caller ignores.
    const aborted = fakeFetch((call) => Promise.reject(call.init?.signal?.reason ?? new Error('aborted')));
    const abort = new AbortController();
    abort.abort();
    expect(await chatApi('https://svc.example', 'chat_abc', aborted.doFetch).live('chs_1', undefined, abort.signal, h)).toMatchObject({ ok: false, code: 'NETWORK_ERROR' });
    expect(h.opened).toBe(0);
  });

  it('refuses a 200 that is not an event stream, and reports a stream that breaks as a network failure', async () => {
    const { doFetch } = fakeFetch(() => json(200, { success: true, data: {} }));
    expect(await chatApi('https://svc.example', 'chat_abc', doFetch).send('chs_1', 'Hi', handlers())).toMatchObject({ ok: false, code: 'SERVER_ERROR' });
    let reads = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (reads++ === 0) controller.enqueue(new TextEncoder().encode('event: text-delta\ndata: {"delta":"Hi"}\n\n'));
        else controller.error(new Error('connection reset'));
      },
    });
    const h = handlers();
    const cut = fakeFetch(() => new Response(broken, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } }));
    expect(await chatApi('https://svc.example', 'chat_abc', cut.doFetch).send('chs_1', 'Hi', h)).toMatchObject({ ok: false, code: 'NETWORK_ERROR' });
    expect(h.seen).toEqual([{ type: 'text-delta', delta: 'Hi' }]);
  });
});
