import { api, seg } from '../../api/client';
import type { Conversation, ConversationAssignBody, ConversationMessage, Page, Transcript } from '../../api/types';
import type { InboxView, ViewDefinition } from './model';

/** The Inbox's requests (docs/operator-api.md "Inbox"): its lists, one conversation, and the four actions. */

/** A page of a view: 50 conversations (Waiting and Mine rarely need a second). */
export const INBOX_PAGE = 50;

/** Everything the Inbox caches is under `['inbox']`: a reconnect of the live stream refreshes it all at once. */
export const inboxKeys = {
  all: ['inbox'] as const,
  lists: ['inbox', 'list'] as const,
  list: (view: InboxView) => ['inbox', 'list', view] as const,
  conversation: (id: string) => ['inbox', 'conversation', id] as const,
};

const opts = (signal?: AbortSignal) => (signal ? { signal } : {});

export const fetchView = (view: ViewDefinition, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<Conversation>>('/api/org/conversations', { query: { ...view.query, limit: INBOX_PAGE, cursor }, ...opts(signal) });

export const fetchConversation = (id: string, signal?: AbortSignal) => api.get<Transcript>(`/api/org/conversations/${seg(id)}`, opts(signal));

/** Takes the conversation over for the session's person. */
export const assign = (id: string) => api.post<Conversation>(`/api/org/conversations/${seg(id)}/assign`, {} satisfies ConversationAssignBody);
export const release = (id: string) => api.post<Conversation>(`/api/org/conversations/${seg(id)}/release`);
export const close = (id: string) => api.post<Conversation>(`/api/org/conversations/${seg(id)}/close`);
/** A reply signed with the session's person's name (only while they hold it: 409 otherwise). */
export const reply = (id: string, content: string) => api.post<ConversationMessage>(`/api/org/conversations/${seg(id)}/messages`, { content, role: 'operator' });

/** The live stream of the organization's conversations (EventSource, with the session cookie). */
export const EVENTS_URL = '/api/org/conversations/events';
