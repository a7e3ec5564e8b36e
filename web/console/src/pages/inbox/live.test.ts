import { QueryClient, type InfiniteData } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Conversation, Page, Transcript } from '../../api/types';
import { inboxKeys } from './api';
import { applyEvent } from './live';

const ME = 'usr_me';
const conv = (id: string, fields: Partial<Conversation> = {}): Conversation => ({
  id, agentId: 'agt_1', source: 'widget', pageUrl: null, utm: null, status: 'bot', assignee: null, handoffRequestedAt: null,
  messageCount: 1, usage: { inputTokens: 0, outputTokens: 0 }, createdAt: '2026-11-29T10:00:00.000Z', updatedAt: '2026-11-29T10:00:00.000Z', ...fields,
});
const list = (items: Conversation[]): InfiniteData<Page<Conversation>> => ({ pages: [{ items, nextCursor: null }], pageParams: [null] });
const ids = (client: QueryClient, view: 'waiting' | 'mine' | 'open') => client.getQueryData<InfiniteData<Page<Conversation>>>(inboxKeys.list(view))?.pages.flatMap((p) => p.items.map((c) => c.id));

describe('the Inbox stream’s events applied to the console’s cache', () => {
  it('a conversation event moves it between the loaded views and into the open transcript, and says what it was before', () => {
    const client = new QueryClient();
    client.setQueryData(inboxKeys.list('waiting'), list([]));
    client.setQueryData(inboxKeys.list('mine'), list([]));
    client.setQueryData(inboxKeys.list('open'), list([conv('conv_1')]));
    client.setQueryData<Transcript>(inboxKeys.conversation('conv_1'), { ...conv('conv_1'), messages: [] });

    const waiting = conv('conv_1', { status: 'waiting', handoffRequestedAt: '2026-11-29T10:01:00.000Z' });
    const event = applyEvent(client, ME, 'conversation', JSON.stringify(waiting));
    expect(event).toMatchObject({ type: 'conversation', conversation: { id: 'conv_1', status: 'waiting' }, before: { status: 'bot' } });
    expect(ids(client, 'waiting')).toEqual(['conv_1']);
    expect(ids(client, 'open')).toEqual(['conv_1']);
    expect(client.getQueryData<Transcript>(inboxKeys.conversation('conv_1'))?.status).toBe('waiting');

    applyEvent(client, ME, 'conversation', JSON.stringify({ ...waiting, status: 'human', assignee: { id: ME, name: 'Mia' } }));
    expect(ids(client, 'waiting')).toEqual([]);
    expect(ids(client, 'mine')).toEqual(['conv_1']);
  });

  it('a message event joins its transcript once', () => {
    const client = new QueryClient();
    client.setQueryData<Transcript>(inboxKeys.conversation('conv_1'), { ...conv('conv_1'), messages: [] });
    const message = { id: 'msg_1', role: 'user', content: 'Hello?', status: 'complete', error: null, toolCall: null, usage: null, author: null, createdAt: '2026-11-29T10:02:00.000Z' };
    const data = JSON.stringify({ conversationId: 'conv_1', message });
    expect(applyEvent(client, ME, 'message', data)).toMatchObject({ type: 'message', conversationId: 'conv_1' });
    applyEvent(client, ME, 'message', data);
    expect(client.getQueryData<Transcript>(inboxKeys.conversation('conv_1'))?.messages.map((m) => m.id)).toEqual(['msg_1']);
    // Another conversation's message creates nothing.
    applyEvent(client, ME, 'message', JSON.stringify({ conversationId: 'conv_2', message }));
    expect(client.getQueryData(inboxKeys.conversation('conv_2'))).toBeUndefined();
  });

  it('ignores what it cannot read', () => {
    const client = new QueryClient();
    expect(applyEvent(client, ME, 'conversation', 'not json')).toBeNull();
    expect(applyEvent(client, ME, 'conversation', '{}')).toBeNull();
    expect(applyEvent(client, ME, 'message', '{"conversationId":"conv_1"}')).toBeNull();
    expect(applyEvent(client, ME, 'other', '{"id":"x"}')).toBeNull();
  });
});
