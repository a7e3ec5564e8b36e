import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useAgents } from '../../api/lists';
import { useCurrentSession } from '../../api/session';
import type { Conversation, ConversationMessage, Transcript } from '../../api/types';
import { Page } from '../../components/Page';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { utmText } from '../conversations/source';
import { agentPath } from '../agents/tabs';
import { assign, close, fetchConversation, inboxKeys, release, reply } from './api';
import { useAnnouncer, useNow } from './hooks';
import { useInboxLive } from './live';
import { VIEWS, assigneeText, authorOf, conflictText, leftDetails, placeIn, shown, spoken, statusText, toolText, waitText, withConversation, withMessage, type InboxAction } from './model';
import { StatusBadge } from './StatusBadge';
import '../conversations/conversations.css';
import './inbox.css';

/**
 * One conversation of the Inbox (`/inbox/{id}`): who it is with and where it started, the transcript (the
 * visitor, the agent, each operator by name, the status changes), and what a member can do: **Take over**
 * (then a reply box: Enter sends, Shift+Enter starts a new line), **Release to the agent**, **Close**. The live
 * stream brings new messages and status changes; a polite live region says the ones nobody here caused.
 */
export default function InboxConversationPage() {
  const { conversationId = '' } = useParams();
  const query = useQuery({ queryKey: inboxKeys.conversation(conversationId), queryFn: ({ signal }) => fetchConversation(conversationId, signal) });
  // Once drawn, a failed refetch does not take the conversation (and a reply being typed) away.
  if (query.data) return <ConversationView key={query.data.id} transcript={query.data} />;
  return (
    <QueryState query={query} what="conversation">
      {() => null}
    </QueryState>
  );
}

type Focus = 'reply' | 'take' | 'status';

function ConversationView({ transcript }: { transcript: Transcript }) {
  const client = useQueryClient();
  const me = useCurrentSession().user.id;
  const agents = useAgents();
  const agent = agents.data?.find((each) => each.id === transcript.agentId);
  const agentName = agent?.name ?? 'The agent';
  const context = { me, agentName, source: transcript.source };
  const now = useNow(15_000);
  const [announcement, say] = useAnnouncer();
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<{ text: string; action: InboxAction } | null>(null);
  const focusNext = useRef<Focus | null>(null);
  const replyRef = useRef<HTMLTextAreaElement>(null);
  const takeRef = useRef<HTMLButtonElement>(null);
  const statusRef = useRef<HTMLElement>(null);
  const problemRef = useRef<HTMLParagraphElement>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const replyId = useId();
  const id = transcript.id;

  const { connected } = useInboxLive((event) => {
    if (event.type === 'message' && event.conversationId === id) {
      const text = spoken(event.message, context);
      if (text) say(text);
    }
  });

  const status = transcript.status;
  const mine = status === 'human' && transcript.assignee?.id === me;
  const heldByOther = status === 'human' && !mine;
  const canTake = status === 'bot' || status === 'waiting' || heldByOther;
  const canRelease = status === 'waiting' || status === 'human';
  const canClose = status !== 'closed';

  // After an action, focus goes where the next step is; when a change from elsewhere took the focused control
  // away (another member took over: no reply box), to the status.
  const state = `${status}:${transcript.assignee?.id ?? ''}`;
  const stateBefore = useRef(state);
  useLayoutEffect(() => {
    const target = focusNext.current;
    focusNext.current = null;
    const moved = stateBefore.current !== state;
    stateBefore.current = state;
    if (target === 'reply') replyRef.current?.focus();
    else if (target === 'take') (takeRef.current ?? statusRef.current)?.focus();
    else if (target === 'status') statusRef.current?.focus();
    else if (moved && (!document.activeElement || document.activeElement === document.body)) statusRef.current?.focus({ preventScroll: true });
  });

  // Opened from a link, the layout put focus on <main> while the conversation loaded: now on its heading.
  useLayoutEffect(() => {
    if (document.activeElement === document.getElementById('main')) document.querySelector<HTMLElement>('main h1')?.focus();
  }, []);

  // The transcript's box follows new messages while it is scrolled to its end.
  const count = transcript.messages.length;
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const box = logRef.current;
    if (box && atEnd.current) box.scrollTop = box.scrollHeight;
  }, [count]);

  /** The conversation's new state, everywhere the Inbox has it. */
  function changed(conversation: Conversation): void {
    client.setQueryData<Transcript>(inboxKeys.conversation(id), (old) => (old ? withConversation(old, conversation) : old));
    for (const view of VIEWS) client.setQueryData(inboxKeys.list(view.id), (old: Parameters<typeof placeIn>[1]) => placeIn(view.id, old, conversation, me));
    // The event line the change wrote comes with the live stream; without it, the transcript is read again.
    if (!connected) void client.invalidateQueries({ queryKey: inboxKeys.conversation(id) });
  }

  /** A refusal in words: a 409 read against the conversation as it is now; anything else as the API said it. */
  async function refused(action: InboxAction, error: unknown): Promise<void> {
    let text = error instanceof Error ? error.message : 'Something went wrong. Please try again.';
    if (error instanceof ApiError && error.status === 409) {
      const fresh = await client.fetchQuery({ queryKey: inboxKeys.conversation(id), queryFn: () => fetchConversation(id), staleTime: 0 }).catch(() => undefined);
      text = conflictText(action, fresh, me, error.message);
    }
    setProblem({ text, action });
    requestAnimationFrame(() => {
      const active = document.activeElement;
      if (!active || active === document.body || (action !== 'reply' && active.tagName === 'BUTTON')) problemRef.current?.focus();
    });
  }

  const take = useMutation({
    mutationFn: () => assign(id),
    onMutate: () => setProblem(null),
    onSuccess: (conversation) => {
      focusNext.current = 'reply';
      changed(conversation);
      say('You took over. The agent stays quiet until you release the conversation.');
    },
    onError: (error) => refused('assign', error),
  });
  const giveBack = useMutation({
    mutationFn: () => release(id),
    onMutate: () => setProblem(null),
    onSuccess: (conversation) => {
      focusNext.current = 'take';
      changed(conversation);
      say(`Released: ${agentName} answers the visitor again.`);
    },
    onError: (error) => refused('release', error),
  });
  const end = useMutation({
    mutationFn: () => close(id),
    onMutate: () => setProblem(null),
    onSuccess: (conversation) => {
      focusNext.current = 'status';
      changed(conversation);
      say('Closed.');
    },
    onError: (error) => refused('close', error),
  });
  const send = useMutation({
    mutationFn: (content: string) => reply(id, content),
    onMutate: () => setProblem(null),
    onSuccess: (message: ConversationMessage) => {
      setDraft('');
      client.setQueryData<Transcript>(inboxKeys.conversation(id), (old) => (old ? withMessage(old, message) : old));
      atEnd.current = true;
    },
    onError: (error) => refused('reply', error),
  });
  const busy = take.isPending || giveBack.isPending || end.isPending;

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const content = draft.trim();
    if (send.isPending) return;
    if (!content) {
      setProblem({ text: 'Write a reply first.', action: 'reply' });
      replyRef.current?.focus();
      return;
    }
    send.mutate(content);
  }
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  const messages = transcript.messages.filter(shown);
  const campaign = utmText(transcript.utm);
  const problemId = `${replyId}-problem`;

  return (
    <Page
      title={`Conversation with ${agentName}`}
      documentTitle={`Conversation with ${agentName} · Inbox`}
      actions={
        <Link className="button" to="/inbox">
          Back to the Inbox
        </Link>
      }
    >
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <dl className="kv card">
        <dt>Status</dt>
        <dd>
          <span ref={statusRef} tabIndex={-1} className="inbox-status">
            <StatusBadge status={status}>{statusText(transcript, me)}</StatusBadge>
          </span>
        </dd>
        <dt>Held by</dt>
        <dd>{assigneeText(transcript, me)}</dd>
        <dt>Waiting</dt>
        <dd>{waitText(transcript, now)}</dd>
        <dt>Agent</dt>
        <dd>{agent ? <Link to={agentPath(agent.id, 'chat')}>{agent.name}</Link> : agentName}</dd>
        <dt>Page</dt>
        <dd>{transcript.pageUrl ?? <span className="muted">Not sent</span>}</dd>
        <dt>UTM</dt>
        <dd>{campaign || <span className="muted">None</span>}</dd>
        <dt>Contact</dt>
        <dd>
          {leftDetails(transcript.messages) ? (
            <>
              Sent through the lead card: find them in <Link to="/contacts">Contacts</Link>.
            </>
          ) : (
            <span className="muted">Not known: no contact details sent in this chat</span>
          )}
        </dd>
        <dt>Started</dt>
        <dd>{formatDateTime(transcript.createdAt)}</dd>
      </dl>

      <div className="conv-bar inbox-actions">
        {canTake ? (
          <button ref={takeRef} type="button" className={`button${heldByOther ? '' : ' primary'}`} aria-disabled={busy || undefined} onClick={() => !busy && take.mutate()}>
            {take.isPending ? 'Taking over…' : heldByOther ? `Take over from ${transcript.assignee?.name || 'them'}` : 'Take over'}
          </button>
        ) : null}
        {canRelease ? (
          <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => !busy && giveBack.mutate()}>
            {giveBack.isPending ? 'Releasing…' : 'Release to the agent'}
          </button>
        ) : null}
        {canClose ? (
          <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => !busy && end.mutate()}>
            {end.isPending ? 'Closing…' : 'Close'}
          </button>
        ) : null}
      </div>
      {problem && problem.action !== 'reply' ? (
        <p ref={problemRef} className="form-error" role="alert" tabIndex={-1}>
          {problem.text}
        </p>
      ) : null}
      {!mine && status !== 'closed' ? (
        <p className="muted small">{status === 'human' ? `${transcript.assignee?.name || 'Another member'} is replying. Take over to reply yourself.` : 'Take over to reply: the agent stays quiet while you hold the conversation.'}</p>
      ) : null}

      <h2 className="visually-hidden">Transcript</h2>
      <div
        ref={logRef}
        className="inbox-log"
        role="region"
        aria-label="Transcript"
        tabIndex={0}
        onScroll={(event) => {
          const box = event.currentTarget;
          atEnd.current = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
        }}
      >
        {messages.length ? (
          <ol className="conv-log">
            {messages.map((message) => (
              <Entry key={message.id} message={message} context={context} />
            ))}
          </ol>
        ) : (
          <p className="muted">No messages yet.</p>
        )}
      </div>

      {mine ? (
        <form className="inbox-reply" onSubmit={submit} noValidate>
          <div className="field conv-compose">
            <label htmlFor={replyId}>Reply to the visitor</label>
            <p id={`${replyId}-hint`} className="hint">
              Enter sends; Shift+Enter starts a new line. Signed with your name.
            </p>
            <textarea
              ref={replyRef}
              id={replyId}
              rows={3}
              maxLength={8000}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              onKeyDown={onKeyDown}
              aria-invalid={problem?.action === 'reply' || undefined}
              aria-describedby={[problem?.action === 'reply' ? problemId : '', `${replyId}-hint`].filter(Boolean).join(' ')}
            />
            {problem?.action === 'reply' ? (
              <p ref={problemRef} id={problemId} className="field-error" role="alert" tabIndex={-1}>
                {problem.text}
              </p>
            ) : null}
          </div>
          <div className="conv-bar">
            <button type="submit" className="button primary" aria-disabled={send.isPending || undefined}>
              {send.isPending ? 'Sending…' : 'Send reply'}
            </button>
          </div>
        </form>
      ) : problem?.action === 'reply' ? (
        <p ref={problemRef} className="form-error" role="alert" tabIndex={-1}>
          {problem.text}
        </p>
      ) : null}
    </Page>
  );
}

function Entry({ message, context }: { message: ConversationMessage; context: { me: string; agentName: string; source: string } }) {
  const at = <span className="muted small conv-time">{formatDateTime(message.createdAt)}</span>;
  if (message.role === 'event' || message.role === 'tool') {
    return (
      <li className="inbox-event">
        <span>{message.role === 'event' ? message.content : toolText(message)}</span> {at}
      </li>
    );
  }
  return (
    <li className={`conv-msg conv-${message.role}`}>
      <p className="conv-who">
        {authorOf(message, context)} {at}
        {message.status === 'error' ? <span className="badge conv-badge-error">Failed</span> : null}
      </p>
      <p className="conv-text">{message.content}</p>
    </li>
  );
}
