import type { InfiniteData } from '@tanstack/react-query';
import type { Conversation, ConversationMessage, Page, Transcript } from '../../api/types';

/**
 * The Inbox's rules, without React (issue 35, docs/operator-api.md "Inbox"): its three views and which
 * conversation belongs in which, how a live change moves a conversation between them (never twice in one),
 * how a message joins a transcript (once, whichever of the POST's answer and the live stream comes first),
 * and the words the pages use for statuses, waits, who said what and refusals.
 */

export type ConversationStatus = 'bot' | 'waiting' | 'human' | 'closed';
export type InboxView = 'waiting' | 'mine' | 'open';

export interface ViewDefinition {
  id: InboxView;
  label: string;
  /** The list's server filters (GET /api/org/conversations). */
  query: Record<string, string>;
  /** The view's table caption. */
  caption: string;
  empty: string;
}

export const VIEWS: readonly ViewDefinition[] = [
  { id: 'waiting', label: 'Waiting', query: { status: 'waiting' }, caption: 'Conversations waiting for a person, longest wait first', empty: 'Nobody is waiting for a person right now. New requests appear here by themselves.' },
  { id: 'mine', label: 'Mine', query: { assignee: 'me', status: 'human' }, caption: 'Conversations you hold, latest first', empty: 'You hold no conversations. Take one over from Waiting or All open.' },
  { id: 'open', label: 'All open', query: { status: 'open' }, caption: 'Open conversations, newest first', empty: 'No open conversations.' },
];

/** The view an address's `?view=` names (Waiting when it names none, or one that does not exist). */
export function viewOf(param: string | null): ViewDefinition {
  return VIEWS.find((view) => view.id === param) ?? VIEWS[0]!;
}

/** Whether a conversation, as it is now, belongs in a view: the server's filters, applied to a live change. */
export function belongs(view: InboxView, conversation: Conversation, me: string): boolean {
  switch (view) {
    case 'waiting':
      return conversation.status === 'waiting';
    case 'mine':
      return conversation.status === 'human' && conversation.assignee?.id === me;
    case 'open':
      return conversation.status !== 'closed';
  }
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : 0);

/** A view's order: the longest wait first (Waiting), the latest activity first (Mine), the newest first (All open, as the server pages it). */
export function compareIn(view: InboxView): (a: Conversation, b: Conversation) => number {
  if (view === 'waiting') return (a, b) => time(a.handoffRequestedAt ?? a.createdAt) - time(b.handoffRequestedAt ?? b.createdAt) || a.id.localeCompare(b.id);
  if (view === 'mine') return (a, b) => time(b.updatedAt) - time(a.updatedAt) || a.id.localeCompare(b.id);
  return (a, b) => time(b.createdAt) - time(a.createdAt) || b.id.localeCompare(a.id);
}

/** A view's loaded conversations in its order, each once. */
export function itemsOf(view: InboxView, data: InfiniteData<Page<Conversation>> | undefined): Conversation[] {
  const byId = new Map<string, Conversation>();
  for (const page of data?.pages ?? []) for (const item of page.items) if (!byId.has(item.id)) byId.set(item.id, item);
  return [...byId.values()].sort(compareIn(view));
}

/**
 * A view's loaded pages after a live change of one conversation: taken out wherever it was, and put back in the
 * first page when it belongs in the view now (a newcomer, or its new state in place of the old). Without pages
 * yet (the list still loading) nothing changes: the list will have it.
 */
export function placeIn(view: InboxView, data: InfiniteData<Page<Conversation>> | undefined, conversation: Conversation, me: string): InfiniteData<Page<Conversation>> | undefined {
  if (!data?.pages.length) return data;
  const pages = data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== conversation.id) }));
  if (belongs(view, conversation, me)) pages[0] = { ...pages[0]!, items: [conversation, ...pages[0]!.items] };
  return { ...data, pages };
}

/** A view's loaded pages after a new message: its conversation's last change brought up to date (Mine's order). */
export function touchIn(data: InfiniteData<Page<Conversation>> | undefined, conversationId: string, message: ConversationMessage): InfiniteData<Page<Conversation>> | undefined {
  if (!data) return data;
  let changed = false;
  const pages = data.pages.map((page) => ({
    ...page,
    items: page.items.map((item) => {
      if (item.id !== conversationId || time(item.updatedAt) >= time(message.createdAt)) return item;
      changed = true;
      return { ...item, updatedAt: message.createdAt };
    }),
  }));
  return changed ? { ...data, pages } : data;
}

/** A transcript with one more message, unless it has it already (the POST's answer and the live stream both bring an operator's reply). */
export function withMessage(transcript: Transcript, message: ConversationMessage): Transcript {
  if (transcript.messages.some((each) => each.id === message.id)) return transcript;
  const later = time(message.createdAt) > time(transcript.updatedAt);
  return { ...transcript, messages: [...transcript.messages, message], messageCount: transcript.messageCount + 1, ...(later ? { updatedAt: message.createdAt } : {}) };
}

/** A transcript with the conversation's new state (status, assignee…), its messages kept. */
export function withConversation(transcript: Transcript, conversation: Conversation): Transcript {
  return { ...transcript, ...conversation, messages: transcript.messages, messageCount: Math.max(transcript.messageCount, conversation.messageCount) };
}

// ── Words ────────────────────────────────────────────────────────────────────────────────────────────────

const isMe = (person: { id: string } | null | undefined, me: string) => Boolean(person && person.id === me);

/** "With the agent", "Waiting for a person", "With you", "With Anna", "Closed". */
export function statusText(conversation: Pick<Conversation, 'status' | 'assignee'>, me: string): string {
  switch (conversation.status) {
    case 'bot':
      return 'With the agent';
    case 'waiting':
      return 'Waiting for a person';
    case 'human':
      return isMe(conversation.assignee, me) ? 'With you' : `With ${conversation.assignee?.name || 'a team member'}`;
    case 'closed':
      return 'Closed';
    default:
      return conversation.status;
  }
}

/** "held by you", "Anna", "Nobody": the assignee column. */
export function assigneeText(conversation: Pick<Conversation, 'assignee'>, me: string): string {
  if (!conversation.assignee) return 'Nobody';
  return isMe(conversation.assignee, me) ? `${conversation.assignee.name || 'You'} (you)` : conversation.assignee.name || 'A team member';
}

/** "less than a minute", "1 minute", "12 minutes", "1 hour 5 minutes", "2 days": how long from `since` to `now`. */
export function durationText(since: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.floor(seconds / 60);
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${unit(hours, 'hour')} ${unit(minutes % 60, 'minute')}` : unit(hours, 'hour');
  return unit(Math.floor(hours / 24), 'day');
}

/** The wait column: how long a waiting conversation has waited so far; when a person was last asked for, for the others. */
export function waitText(conversation: Pick<Conversation, 'status' | 'handoffRequestedAt'>, now: number): string {
  const asked = conversation.handoffRequestedAt;
  if (!asked) return 'Not asked';
  const howLong = durationText(asked, now);
  return conversation.status === 'waiting' ? howLong : `Asked ${howLong} ago`;
}

/** Who wrote a message, for the transcript: the visitor, the agent, an operator by name, or nobody (an event). */
export function authorOf(message: ConversationMessage, context: { me: string; agentName: string; source: string }): string {
  switch (message.role) {
    case 'user':
      return context.source === 'widget' ? 'Visitor' : 'User';
    case 'assistant':
      return context.agentName;
    case 'operator':
      if (!message.author) return 'Team';
      return isMe(message.author, context.me) ? `${message.author.name || 'You'} (you)` : message.author.name || 'A team member';
    default:
      return '';
  }
}

const LEAD_TOOL = 'capture_lead';
const REQUEST_HUMAN = 'request_human';

/** A tool message in the operator's words, or null for one that says nothing to them (the request for a person: its event follows). */
export function toolText(message: ConversationMessage): string | null {
  const call = message.toolCall;
  if (!call || call.name === REQUEST_HUMAN) return null;
  if (call.name === LEAD_TOOL) {
    if (call.outcome === 'SUBMITTED') return 'The visitor sent their contact details (lead card).';
    if (call.outcome === 'DECLINED') return 'The visitor chose not to share their contact details.';
    return 'The agent offered the lead card for contact details.';
  }
  return `The agent used the tool ${call.name}${call.outcome === 'OK' ? '' : ` (${call.outcome})`}.`;
}

/** Whether the visitor left their details in this conversation (a lead card sent). */
export function leftDetails(messages: readonly ConversationMessage[]): boolean {
  return messages.some((message) => message.toolCall?.name === LEAD_TOOL && message.toolCall.outcome === 'SUBMITTED');
}

/** Whether a message is drawn in the transcript (an answer that only asked for tools is not; a tool call only when it says something). */
export function shown(message: ConversationMessage): boolean {
  if (message.role === 'tool') return toolText(message) !== null;
  if (message.role === 'assistant') return Boolean(message.content) || message.status === 'error';
  return true;
}

/**
 * What the live region says of a message that arrived on its own (null: nothing): the visitor's and the agent's,
 * another member's reply, and events not caused by me (mine are said by the action that made them).
 */
export function spoken(message: ConversationMessage, context: { me: string; agentName: string; source: string }): string | null {
  if (message.role === 'tool' || !message.content) return null;
  if (message.role === 'event') return isMe(message.author, context.me) ? null : message.content;
  if (message.role === 'operator' && isMe(message.author, context.me)) return null;
  return `${authorOf(message, context)}: ${message.content}`;
}

export type InboxAction = 'assign' | 'release' | 'close' | 'reply';

/**
 * A 409 in words, from the conversation as it is now (read again after the refusal): why the action could not
 * happen and what to do. Other refusals are shown as the API words them.
 */
export function conflictText(action: InboxAction, conversation: Pick<Conversation, 'status' | 'assignee'> | undefined, me: string, apiMessage: string): string {
  const status = conversation?.status;
  const holder = conversation?.assignee && !isMe(conversation.assignee, me) ? conversation.assignee.name || 'Another team member' : null;
  switch (action) {
    case 'assign':
      if (status === 'closed') return 'This conversation is closed, so it can’t be taken over. If the visitor asks for a person again, it comes back to Waiting.';
      break;
    case 'release':
      if (status === 'bot') return 'This conversation is already with the agent.';
      if (status === 'closed') return 'This conversation is closed: there is nothing to release.';
      break;
    case 'reply':
      if (status === 'human' && holder) return `${holder} took this conversation over, so your reply was not sent. Your text is still in the box.`;
      if (status === 'bot') return 'This conversation went back to the agent, so your reply was not sent. Take it over to reply; your text is still in the box.';
      if (status === 'waiting') return 'You no longer hold this conversation, so your reply was not sent. Take it over to reply; your text is still in the box.';
      if (status === 'closed') return 'This conversation was closed, so your reply was not sent.';
      break;
    case 'close':
      break;
  }
  return apiMessage;
}
