import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Agent, ConversationMessage, TokenUsage } from '../../api/types';
import { FormError, TextArea } from '../../components/fields';
import { conversationKeys, fetchTranscript, startConversation, streamTurn, tokens } from './api';
import { applyEvent, endWriting, live, spoken, stopped } from './turn';
import { MessageList } from './Messages';

/** The server's limit (docs/conversations.md): the textarea stops there. */
const MAX_CHARS = 8000;

/**
 * The agent page's "Playground": talk to the agent through its model and tools, the answer streamed as
 * it is written. Needs a model; the Model section above saves it into the agent's query, which this reads.
 */
export function Playground({ agent }: { agent: Agent }) {
  const current = useQuery({ queryKey: queryKeys.agent(agent.id), queryFn: () => api.get<Agent>(`/api/org/agents/${seg(agent.id)}`) });
  const model = (current.data ?? agent).model;
  return (
    <section className="card" aria-labelledby="sec-agent-playground">
      <h2 id="sec-agent-playground">Playground</h2>
      {model ? <Chat agent={agent} /> : <p className="muted">Choose a model above first: the Playground talks to the agent through it.</p>}
    </section>
  );
}

/**
 * The Playground's conversation is remembered in this tab (sessionStorage), so leaving the agent page (to
 * the call log, a transcript) and coming back resumes it; Start over forgets it.
 */
const remembered = {
  key: (agentId: string) => `switchboard.playground.${agentId}`,
  get(agentId: string): string | null {
    try {
      return sessionStorage.getItem(this.key(agentId));
    } catch {
      return null; // storage refused (a privacy mode): the Playground starts afresh each visit
    }
  },
  set(agentId: string, conversationId: string | null) {
    try {
      if (conversationId) sessionStorage.setItem(this.key(agentId), conversationId);
      else sessionStorage.removeItem(this.key(agentId));
    } catch {
      // as above
    }
  },
};

function Chat({ agent }: { agent: Agent }) {
  const client = useQueryClient();
  const [conversationId, setConversation] = useState<string | null>(() => remembered.get(agent.id));
  /** The conversation now, for answers that arrive later (a resumed transcript after Start over is dropped). */
  const currentId = useRef(conversationId);
  const setConversationId = (id: string | null) => {
    remembered.set(agent.id, id);
    currentId.current = id;
    setConversation(id);
  };
  const [messages, setMessages] = useState<ConversationMessage[]>([]);
  const [usage, setUsage] = useState<TokenUsage | null>(null);
  const [draft, setDraft] = useState('');
  const [answering, setAnswering] = useState(false);
  const [problem, setProblem] = useState<{ field?: string; error: unknown } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const abort = useRef<AbortController | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const focusInput = () => form.current?.querySelector('textarea')?.focus();

  // A remembered conversation: its messages so far, unless the operator has already sent a new one.
  const agentId = agent.id;
  const [resumeId] = useState(conversationId);
  useEffect(() => {
    if (!resumeId) return;
    let current = true;
    fetchTranscript(resumeId).then(
      (transcript) => {
        if (!current || currentId.current !== resumeId) return;
        setMessages((m) => (m.length ? m : transcript.messages));
        setUsage((u) => u ?? transcript.usage);
      },
      (error: unknown) => {
        // Gone: the next message starts a new conversation. (Unreadable now: kept, the next message goes on with it.)
        if (!current || currentId.current !== resumeId || !(error instanceof ApiError && error.notFound)) return;
        remembered.set(agentId, null);
        currentId.current = null;
        setConversation(null);
      },
    );
    return () => {
      current = false;
    };
  }, [resumeId, agentId]);

  async function send() {
    const content = draft.trim();
    if (answering) return;
    if (!content) {
      setProblem({ field: 'content', error: 'Write a message first.' });
      focusInput();
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    const from = messages.length;
    let started = false;
    let ended: ConversationMessage[] | null = null;
    setAnswering(true);
    setProblem(null);
    setAnnouncement('');
    setDraft('');
    setMessages((m) => [...m, live('user', { content })]);
    try {
      let id = conversationId;
      if (!id) {
        id = (await startConversation(agent.id)).id;
        setConversationId(id);
      }
      await streamTurn(id, content, controller.signal, (event) => {
        if (event.type === 'start') started = true;
        if (event.type === 'finish') {
          ended = event.messages;
          setUsage((u) => ({ inputTokens: (u?.inputTokens ?? 0) + event.usage.inputTokens, outputTokens: (u?.outputTokens ?? 0) + event.usage.outputTokens }));
        }
        setMessages((m) => applyEvent(m, event, from));
      });
      if (ended) setAnnouncement(spoken(ended));
      else {
        // The stream ended without its last event: the turn could not be saved (an `error` event said why).
        setMessages((m) => endWriting(m, 'error'));
        setAnnouncement('The answer was not completed.');
      }
    } catch (error) {
      if (controller.signal.aborted) {
        setMessages(stopped);
        setAnnouncement('Stopped. What the agent had written so far is saved.');
        focusInput();
      } else if (!started) {
        // Refused before the turn began (nothing was saved): the message goes back into the box.
        setMessages((m) => m.slice(0, from));
        setDraft(content);
        setProblem({ field: error instanceof ApiError && error.field === 'content' ? 'content' : undefined, error });
        focusInput();
      } else {
        setMessages((m) => [...endWriting(m, 'error'), live('assistant', { status: 'error', error: { code: error instanceof ApiError ? error.code : 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) } })]);
        setAnnouncement('The answer was not completed.');
      }
    } finally {
      abort.current = null;
      setAnswering(false);
      void client.invalidateQueries({ queryKey: conversationKeys.all });
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  function stop() {
    abort.current?.abort();
  }

  function startOver() {
    if (answering) return;
    setConversationId(null);
    setMessages([]);
    setUsage(null);
    setProblem(null);
    setDraft('');
    setAnnouncement('A new conversation starts with your next message.');
    focusInput();
  }

  return (
    <>
      <p className="muted">Talk to “{agent.name}” as a customer would: it answers with its model, instructions and tools, and calls the tools for real.</p>
      {messages.length ? (
        <MessageList messages={messages} agentId={agent.id} conversationId={conversationId} userLabel="You" label="Playground conversation" />
      ) : (
        <p className="muted">No messages yet. Ask something the agent should handle.</p>
      )}
      {answering && !messages.some((m) => m.status === 'streaming' || m.status === 'running') ? <p className="muted small">Waiting for the model…</p> : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <form ref={form} className="conv-compose" onSubmit={submit} noValidate aria-label="Message the agent">
        <TextArea
          label="Message"
          name="content"
          rows={3}
          maxLength={MAX_CHARS}
          hint="Enter sends; Shift+Enter starts a new line."
          value={draft}
          onChange={(e) => {
            setDraft(e.target.value);
            if (problem?.field) setProblem(null);
          }}
          onKeyDown={onKeyDown}
          error={problem?.field ? errorText(problem.error) : undefined}
        />
        {problem && !problem.field ? <FormError error={problem.error} /> : null}
        <div className="conv-bar">
          <button type="submit" className="button primary" aria-disabled={answering || undefined}>
            {answering ? 'Answering…' : 'Send'}
          </button>
          {answering ? (
            <button type="button" className="button" onClick={stop}>
              Stop
            </button>
          ) : null}
          <button type="button" className="button" aria-disabled={answering || undefined} onClick={startOver}>
            Start over
          </button>
          {conversationId ? <Link to={`/conversations/${encodeURIComponent(conversationId)}`}>Open the transcript</Link> : null}
          {usage ? <span className="muted small">Tokens so far: {tokens(usage)}</span> : null}
        </div>
      </form>
    </>
  );
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
