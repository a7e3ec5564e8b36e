import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../api/client';
import { callLogPath, streamTurn, type TurnEvent } from './api';

function stub(response: Response) {
  const fetch = vi.fn(async (_input: string, _init: RequestInit) => response);
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const sse = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });

afterEach(() => {
  vi.unstubAllGlobals();
  api.setCsrfToken(null);
});

describe('streamTurn', () => {
  it('posts the message with the session’s CSRF token, asking for events, and hands each known event over in order', async () => {
    api.setCsrfToken('csrf-123', 'usr_1:org_1');
    const fetch = stub(sse('event: text-delta\ndata: {"type":"text-delta","delta":"Hi"}\n\nevent: other\ndata: {"type":"other"}\n\ndata: not json\n\nevent: finish\ndata: {"type":"finish","status":"complete","conversationId":"conv_1","messages":[],"usage":{"inputTokens":1,"outputTokens":2}}\n\n'));
    const events: TurnEvent[] = [];
    await streamTurn('conv_1', 'Hello', new AbortController().signal, (event) => events.push(event));
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'finish']);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/api/org/conversations/conv_1/messages');
    expect(init).toMatchObject({ method: 'POST', credentials: 'same-origin', body: '{"content":"Hello"}' });
    expect(init.headers).toMatchObject({ Accept: 'text/event-stream', 'Content-Type': 'application/json', 'X-CSRF-Token': 'csrf-123' });
  });

  it('rejects with the API’s own refusal when the turn cannot begin', async () => {
    stub(new Response(JSON.stringify({ success: false, error: 'This conversation is still answering your previous message.', code: 'CONFLICT' }), { status: 409, headers: { 'content-type': 'application/json' } }));
    const refusal = await streamTurn('conv_1', 'Hello', new AbortController().signal, () => undefined).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 409, code: 'CONFLICT', message: 'This conversation is still answering your previous message.' });
  });
});

describe('callLogPath', () => {
  it('opens the call log at the agent’s calls of that day', () => {
    const at = new Date(2026, 10, 26, 15, 30).toISOString();
    expect(callLogPath('agt_1', at, null)).toBe('/tool-calls?agentId=agt_1&from=2026-11-26&to=2026-11-26');
    expect(callLogPath('agt_1', at, 'conv_2')).toBe('/tool-calls?conversationId=conv_2');
  });
});
