import type { InfiniteData } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Conversation, ConversationMessage, Page, Transcript } from '../../api/types';
import {
  VIEWS,
  assigneeText,
  authorOf,
  belongs,
  conflictText,
  durationText,
  itemsOf,
  placeIn,
  shown,
  spoken,
  statusText,
  toolText,
  touchIn,
  viewOf,
  waitText,
  withConversation,
  withMessage,
} from './model';

const ME = 'usr_me';
const ANNA = { id: 'usr_anna', name: 'Anna' };

const conv = (id: string, fields: Partial<Conversation> = {}): Conversation => ({
  id, agentId: 'agt_1', source: 'widget', pageUrl: 'https://shop.example/prices', utm: null, status: 'bot', assignee: null, handoffRequestedAt: null,
  messageCount: 1, usage: { inputTokens: 0, outputTokens: 0 }, createdAt: '2026-11-29T10:00:00.000Z', updatedAt: '2026-11-29T10:00:00.000Z', ...fields,
});
const msg = (id: string, fields: Partial<ConversationMessage> = {}): ConversationMessage => ({
  id, role: 'user', content: 'Hello', status: 'complete', error: null, toolCall: null, usage: null, author: null, createdAt: '2026-11-29T10:05:00.000Z', ...fields,
});
const pages = (...lists: Conversation[][]): InfiniteData<Page<Conversation>> => ({ pages: lists.map((items, i) => ({ items, nextCursor: i < lists.length - 1 ? `c${i}` : null })), pageParams: lists.map((_, i) => (i ? `c${i - 1}` : null)) });
const ids = (view: 'waiting' | 'mine' | 'open', data: InfiniteData<Page<Conversation>> | undefined) => itemsOf(view, data).map((c) => c.id);

describe('the Inbox’s views', () => {
  it('reads the view from the address, Waiting by default; each with the server’s filters', () => {
    expect(viewOf(null).id).toBe('waiting');
    expect(viewOf('mine').id).toBe('mine');
    expect(viewOf('nonsense').id).toBe('waiting');
    expect(VIEWS.map((v) => v.query)).toEqual([{ status: 'waiting' }, { assignee: 'me', status: 'human' }, { status: 'open' }]);
  });

  it('places a conversation by its status and assignee, as the server filters', () => {
    const waiting = conv('conv_w', { status: 'waiting' });
    const mine = conv('conv_m', { status: 'human', assignee: { id: ME, name: 'Me' } });
    const annas = conv('conv_a', { status: 'human', assignee: ANNA });
    const closed = conv('conv_c', { status: 'closed' });
    expect(VIEWS.map((v) => belongs(v.id, waiting, ME))).toEqual([true, false, true]);
    expect(VIEWS.map((v) => belongs(v.id, mine, ME))).toEqual([false, true, true]);
    expect(VIEWS.map((v) => belongs(v.id, annas, ME))).toEqual([false, false, true]);
    expect(VIEWS.map((v) => belongs(v.id, closed, ME))).toEqual([false, false, false]);
    expect(VIEWS.map((v) => belongs(v.id, conv('conv_b'), ME))).toEqual([false, false, true]);
  });

  it('orders Waiting by the longest wait, Mine by the latest activity, All open by the newest', () => {
    const a = conv('conv_a', { status: 'waiting', handoffRequestedAt: '2026-11-29T10:03:00.000Z', createdAt: '2026-11-29T09:00:00.000Z', updatedAt: '2026-11-29T10:10:00.000Z' });
    const b = conv('conv_b', { status: 'waiting', handoffRequestedAt: '2026-11-29T10:01:00.000Z', createdAt: '2026-11-29T09:30:00.000Z', updatedAt: '2026-11-29T10:02:00.000Z' });
    expect(ids('waiting', pages([a, b]))).toEqual(['conv_b', 'conv_a']);
    expect(ids('mine', pages([b, a]))).toEqual(['conv_a', 'conv_b']);
    expect(ids('open', pages([a, b]))).toEqual(['conv_b', 'conv_a']);
  });
});

describe('live changes of the lists', () => {
  it('moves a conversation between views as its status changes, never twice in one', () => {
    const asked = conv('conv_1', { status: 'waiting', handoffRequestedAt: '2026-11-29T10:04:00.000Z', createdAt: '2026-11-29T10:02:00.000Z' });
    const other = conv('conv_0', { status: 'waiting', handoffRequestedAt: '2026-11-29T10:01:00.000Z', createdAt: '2026-11-29T10:01:00.000Z' });
    let waiting = pages([other]);
    let mine = pages([]);
    let open = pages([{ ...asked, status: 'bot', handoffRequestedAt: null }, other], [conv('conv_9', { createdAt: '2026-11-29T09:00:00.000Z' })]);
    const apply = (c: Conversation) => {
      waiting = placeIn('waiting', waiting, c, ME)!;
      mine = placeIn('mine', mine, c, ME)!;
      open = placeIn('open', open, c, ME)!;
    };
    apply(asked);
    expect(ids('waiting', waiting)).toEqual(['conv_0', 'conv_1']);
    expect(ids('open', open)).toEqual(['conv_1', 'conv_0', 'conv_9']);
    // The same event twice (a reconnect, two tabs' actions): still once.
    apply(asked);
    expect(ids('waiting', waiting)).toEqual(['conv_0', 'conv_1']);
    expect(open.pages.flatMap((p) => p.items).filter((c) => c.id === 'conv_1')).toHaveLength(1);

    apply({ ...asked, status: 'human', assignee: { id: ME, name: 'Me' } });
    expect(ids('waiting', waiting)).toEqual(['conv_0']);
    expect(ids('mine', mine)).toEqual(['conv_1']);
    expect(itemsOf('open', open).find((c) => c.id === 'conv_1')?.status).toBe('human');

    apply({ ...asked, status: 'closed', assignee: { id: ME, name: 'Me' } });
    expect(ids('mine', mine)).toEqual([]);
    expect(ids('open', open)).toEqual(['conv_0', 'conv_9']);
  });

  it('leaves a list that is still loading alone (it will have the change)', () => {
    expect(placeIn('waiting', undefined, conv('conv_1', { status: 'waiting' }), ME)).toBeUndefined();
  });

  it('brings a conversation’s last change up to date on a new message, once', () => {
    const list = pages([conv('conv_1', { status: 'human', assignee: { id: ME, name: 'Me' } })]);
    const after = touchIn(list, 'conv_1', msg('msg_1'))!;
    expect(after.pages[0]!.items[0]!.updatedAt).toBe('2026-11-29T10:05:00.000Z');
    expect(touchIn(after, 'conv_1', msg('msg_1'))).toBe(after);
    expect(touchIn(list, 'conv_other', msg('msg_1'))).toBe(list);
  });

  it('adds a message to a transcript once, whichever of the reply’s answer and the stream comes first', () => {
    const transcript: Transcript = { ...conv('conv_1'), messages: [msg('msg_0')] };
    const once = withMessage(transcript, msg('msg_1', { role: 'operator', author: { id: ME, name: 'Me' } }));
    expect(once.messages.map((m) => m.id)).toEqual(['msg_0', 'msg_1']);
    expect(once.messageCount).toBe(2);
    expect(withMessage(once, msg('msg_1'))).toBe(once);
    // A status change keeps the messages.
    const held = withConversation(once, conv('conv_1', { status: 'human', assignee: ANNA }));
    expect(held.status).toBe('human');
    expect(held.messages).toHaveLength(2);
  });
});

describe('the Inbox’s words', () => {
  it('says the status and who holds it, “you” for the signed-in member', () => {
    expect(statusText(conv('c'), ME)).toBe('With the agent');
    expect(statusText(conv('c', { status: 'waiting' }), ME)).toBe('Waiting for a person');
    expect(statusText(conv('c', { status: 'human', assignee: { id: ME, name: 'Mia' } }), ME)).toBe('With you');
    expect(statusText(conv('c', { status: 'human', assignee: ANNA }), ME)).toBe('With Anna');
    expect(statusText(conv('c', { status: 'closed' }), ME)).toBe('Closed');
    expect(assigneeText(conv('c'), ME)).toBe('Nobody');
    expect(assigneeText(conv('c', { assignee: { id: ME, name: 'Mia' } }), ME)).toBe('Mia (you)');
    expect(assigneeText(conv('c', { assignee: ANNA }), ME)).toBe('Anna');
  });

  it('says how long a visitor has waited', () => {
    const at = Date.parse('2026-11-29T10:00:00.000Z');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 20_000)).toBe('less than a minute');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 60_000)).toBe('1 minute');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 12 * 60_000 + 5_000)).toBe('12 minutes');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 65 * 60_000)).toBe('1 hour 5 minutes');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 120 * 60_000)).toBe('2 hours');
    expect(durationText('2026-11-29T10:00:00.000Z', at + 50 * 3600_000)).toBe('2 days');
    const asked = { handoffRequestedAt: '2026-11-29T10:00:00.000Z' };
    expect(waitText({ status: 'waiting', ...asked }, at + 3 * 60_000)).toBe('3 minutes');
    expect(waitText({ status: 'human', ...asked }, at + 3 * 60_000)).toBe('Asked 3 minutes ago');
    expect(waitText({ status: 'bot', handoffRequestedAt: null }, at)).toBe('Not asked');
  });

  it('names who said each thing: the visitor, the agent, an operator by name', () => {
    const context = { me: ME, agentName: 'Front desk', source: 'widget' };
    expect(authorOf(msg('m'), context)).toBe('Visitor');
    expect(authorOf(msg('m'), { ...context, source: 'api' })).toBe('User');
    expect(authorOf(msg('m', { role: 'assistant' }), context)).toBe('Front desk');
    expect(authorOf(msg('m', { role: 'operator', author: ANNA }), context)).toBe('Anna');
    expect(authorOf(msg('m', { role: 'operator', author: { id: ME, name: 'Mia' } }), context)).toBe('Mia (you)');
    expect(authorOf(msg('m', { role: 'operator', author: null }), context)).toBe('Team');
  });

  it('draws tool calls in words, and not the request for a person (its event says it)', () => {
    const call = (name: string, outcome: string) => msg('m', { role: 'tool', content: null, toolCall: { id: 'call_1', name, arguments: {}, result: null, outcome, durationMs: 1, callId: null } });
    expect(toolText(call('request_human', 'OK'))).toBeNull();
    expect(shown(call('request_human', 'OK'))).toBe(false);
    expect(toolText(call('capture_lead', 'SUBMITTED'))).toBe('The visitor sent their contact details (lead card).');
    expect(toolText(call('capture_lead', 'PENDING'))).toBe('The agent offered the lead card for contact details.');
    expect(toolText(call('quote', 'TOOL_TIMEOUT'))).toBe('The agent used the tool quote (TOOL_TIMEOUT).');
    expect(shown(msg('m', { role: 'assistant', content: null }))).toBe(false);
    expect(shown(msg('m', { role: 'assistant', content: 'Hi' }))).toBe(true);
  });

  it('announces what others said and did, not the member’s own replies and actions', () => {
    const context = { me: ME, agentName: 'Front desk', source: 'widget' };
    expect(spoken(msg('m', { content: 'Is anyone there?' }), context)).toBe('Visitor: Is anyone there?');
    expect(spoken(msg('m', { role: 'assistant', content: 'Yes.' }), context)).toBe('Front desk: Yes.');
    expect(spoken(msg('m', { role: 'operator', content: 'Hi!', author: ANNA }), context)).toBe('Anna: Hi!');
    expect(spoken(msg('m', { role: 'operator', content: 'Hi!', author: { id: ME, name: 'Mia' } }), context)).toBeNull();
    expect(spoken(msg('m', { role: 'event', content: 'Anna took over', author: ANNA }), context)).toBe('Anna took over');
    expect(spoken(msg('m', { role: 'event', content: 'Mia took over', author: { id: ME, name: 'Mia' } }), context)).toBeNull();
    expect(spoken(msg('m', { role: 'event', content: 'Waiting for a person' }), context)).toBe('Waiting for a person');
  });

  it('says a 409 in words from the conversation as it is now', () => {
    expect(conflictText('reply', conv('c', { status: 'human', assignee: ANNA }), ME, 'x')).toBe('Anna took this conversation over, so your reply was not sent. Your text is still in the box.');
    expect(conflictText('reply', conv('c', { status: 'bot' }), ME, 'x')).toMatch(/^This conversation went back to the agent/);
    expect(conflictText('reply', conv('c', { status: 'closed' }), ME, 'x')).toBe('This conversation was closed, so your reply was not sent.');
    expect(conflictText('assign', conv('c', { status: 'closed' }), ME, 'x')).toMatch(/^This conversation is closed, so it can’t be taken over/);
    expect(conflictText('release', conv('c', { status: 'bot' }), ME, 'x')).toBe('This conversation is already with the agent.');
    // Anything else: the API's own words.
    expect(conflictText('assign', conv('c', { status: 'human' }), ME, 'This conversation has 200 messages, the most one may have.')).toBe('This conversation has 200 messages, the most one may have.');
    expect(conflictText('reply', undefined, ME, 'Take it over first.')).toBe('Take it over first.');
  });
});
