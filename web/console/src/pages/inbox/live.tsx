import { useInfiniteQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Conversation, ConversationMessage, Transcript } from '../../api/types';
import { EVENTS_URL, fetchView, inboxKeys } from './api';
import { VIEWS, itemsOf, placeIn, touchIn, withConversation, withMessage, type InboxView } from './model';

/**
 * The Inbox's live stream (GET /api/org/conversations/events), one per console tab, opened by the signed-in
 * layout for a member of an organization: it keeps the Inbox's cached lists and open conversation current (a
 * conversation moves between the views as its status changes, each once; a new message joins its transcript
 * once) and tells the pages that listen (the Inbox's and the conversation's live regions).
 *
 * - EventSource reconnects by itself after a dropped connection (the server asks for 3 s). A refusal (a 429,
 *   a 401) closes it for good: it is opened again after a wait that doubles up to a minute.
 * - Each time it opens, everything under `['inbox']` is read again: what changed while it was closed (or
 *   before it first opened) is caught up, and the live changes apply from there.
 * - While the tab is hidden it is closed (a browser allows six connections to one server over HTTP/1.1; a
 *   stream per background tab would use them up) and opened again when the tab is shown.
 */

export type InboxEvent =
  | { type: 'conversation'; conversation: Conversation; before: Conversation | undefined }
  | { type: 'message'; conversationId: string; message: ConversationMessage }
  | { type: 'opened' };

interface InboxLiveValue {
  /** Whether the stream is open now. */
  connected: boolean;
  subscribe(listener: (event: InboxEvent) => void): () => void;
}

const InboxLiveContext = createContext<InboxLiveValue | null>(null);

const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 60_000;

/** The conversation as the cache knew it before a change: in a view's list, or its open transcript. */
function known(client: QueryClient, id: string): Conversation | undefined {
  const transcript = client.getQueryData<Transcript>(inboxKeys.conversation(id));
  if (transcript) return transcript;
  for (const view of VIEWS) {
    const found = itemsOf(view.id, client.getQueryData(inboxKeys.list(view.id))).find((item) => item.id === id);
    if (found) return found;
  }
  return undefined;
}

/** Applies one event to the cache; answers what the pages hear. */
export function applyEvent(client: QueryClient, me: string, name: string, data: string): InboxEvent | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  if (name === 'conversation') {
    const conversation = parsed as Conversation;
    if (typeof conversation.id !== 'string') return null;
    const before = known(client, conversation.id);
    for (const view of VIEWS) client.setQueryData(inboxKeys.list(view.id), (old: Parameters<typeof placeIn>[1]) => placeIn(view.id, old, conversation, me));
    client.setQueryData<Transcript>(inboxKeys.conversation(conversation.id), (old) => (old ? withConversation(old, conversation) : old));
    return { type: 'conversation', conversation, before };
  }
  if (name === 'message') {
    const { conversationId, message } = parsed as { conversationId?: unknown; message?: ConversationMessage };
    if (typeof conversationId !== 'string' || !message || typeof message.id !== 'string') return null;
    client.setQueryData<Transcript>(inboxKeys.conversation(conversationId), (old) => (old ? withMessage(old, message) : old));
    for (const view of VIEWS) client.setQueryData(inboxKeys.list(view.id), (old: Parameters<typeof touchIn>[0]) => touchIn(old, conversationId, message));
    return { type: 'message', conversationId, message };
  }
  return null;
}

export function InboxLiveProvider({ me, enabled, children }: { me: string; enabled: boolean; children: ReactNode }) {
  const client = useQueryClient();
  const listeners = useRef(new Set<(event: InboxEvent) => void>());
  const [connected, setConnected] = useState(false);

  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wait = RETRY_FIRST_MS;
    const tell = (event: InboxEvent | null) => {
      if (event) for (const listener of [...listeners.current]) listener(event);
    };
    const heard = (name: string) => (event: MessageEvent<string>) => tell(applyEvent(client, me, name, event.data));

    function open(): void {
      if (source || document.hidden || typeof EventSource === 'undefined') return;
      const stream = new EventSource(EVENTS_URL);
      source = stream;
      stream.onopen = () => {
        wait = RETRY_FIRST_MS;
        setConnected(true);
        void client.invalidateQueries({ queryKey: inboxKeys.all });
        tell({ type: 'opened' });
      };
      stream.onerror = () => {
        setConnected(false);
        // CONNECTING: the browser tries again by itself. CLOSED: refused; tried again after a wait.
        if (stream.readyState !== EventSource.CLOSED) return;
        shut();
        timer = setTimeout(open, wait);
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      };
      stream.addEventListener('conversation', heard('conversation'));
      stream.addEventListener('message', heard('message'));
    }
    function shut(): void {
      source?.close();
      source = null;
      setConnected(false);
    }
    function visibility(): void {
      clearTimeout(timer);
      if (document.hidden) shut();
      else open();
    }

    open();
    document.addEventListener('visibilitychange', visibility);
    return () => {
      document.removeEventListener('visibilitychange', visibility);
      clearTimeout(timer);
      shut();
    };
  }, [client, me, enabled]);

  const subscribe = useCallback((listener: (event: InboxEvent) => void) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);
  const value = useMemo<InboxLiveValue>(() => ({ connected, subscribe }), [connected, subscribe]);
  return <InboxLiveContext.Provider value={value}>{children}</InboxLiveContext.Provider>;
}

/** The live stream's state, and `listener` called with each event while the component is shown. */
export function useInboxLive(listener?: (event: InboxEvent) => void): { connected: boolean } {
  const live = useContext(InboxLiveContext);
  const latest = useRef(listener);
  latest.current = listener;
  const subscribe = live?.subscribe;
  useEffect(() => {
    if (!subscribe) return;
    return subscribe((event) => latest.current?.(event));
  }, [subscribe]);
  return { connected: live?.connected ?? false };
}

/** One view's list: pages of 50, newest first from the server (the view sorts them). Shared by the Inbox and the navigation's count. */
export function useViewQuery(view: InboxView) {
  const definition = VIEWS.find((each) => each.id === view)!;
  return useInfiniteQuery({
    queryKey: inboxKeys.list(view),
    queryFn: ({ pageParam, signal }) => fetchView(definition, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/**
 * The main navigation's count of waiting conversations, a badge after "Inbox" (the link is named "Inbox (3
 * waiting)": the badge's digits are hidden from screen readers, which hear the words); nothing while none wait.
 */
export function InboxCount() {
  const waiting = useViewQuery('waiting');
  const count = itemsOf('waiting', waiting.data).length;
  if (!count) return null;
  const text = `${count}${waiting.hasNextPage ? '+' : ''}`;
  return (
    <>
      <span className="nav-count" aria-hidden="true">
        {text}
      </span>
      <span className="visually-hidden"> ({text} waiting)</span>
    </>
  );
}
