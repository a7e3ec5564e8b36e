import { Link } from 'react-router';
import type { ConversationMessage } from '../../api/types';
import { CallOutcome } from '../tools/CallOutcome';
import { callLogPath, providerProblem, tokens } from './api';
import './conversations.css';

/**
 * A conversation's messages in order, as the transcript page and the Playground show them. Besides the
 * saved statuses (`complete`, `cancelled`, `error`) the Playground's live messages are `streaming` (an
 * answer being written) or `running` (a tool call not ended yet).
 */
export function MessageList({ messages, agentId, conversationId, userLabel, label, showToolRequests = false }: {
  messages: ConversationMessage[];
  agentId: string;
  /** The conversation's id once it has one: its tool calls link to its calls in the call log. */
  conversationId: string | null;
  /** Who wrote the user's messages: "You" in the Playground, "User" in a transcript. */
  userLabel: string;
  label: string;
  /** Also the answers that only asked for tools (no text), with their tokens: the transcript shows every model request. */
  showToolRequests?: boolean;
}) {
  const shown = showToolRequests ? messages : messages.filter((m) => !(m.role === 'assistant' && m.status === 'complete' && !m.content));
  return (
    <ol className="conv-log" aria-label={label}>
      {shown.map((message) => (
        <li key={message.id} className={`conv-msg conv-${message.role}`}>
          {message.role === 'tool' && message.toolCall ? (
            <ToolCallView message={message} agentId={agentId} conversationId={conversationId} />
          ) : message.role === 'user' ? (
            <>
              <p className="conv-who">{userLabel}</p>
              <p className="conv-text">{message.content}</p>
            </>
          ) : (
            <AssistantView message={message} />
          )}
        </li>
      ))}
    </ol>
  );
}

function AssistantView({ message }: { message: ConversationMessage }) {
  const asked = !message.content && message.status === 'complete';
  return (
    <>
      <p className="conv-who">
        Assistant
        {message.status === 'cancelled' ? <span className="badge off">Stopped</span> : null}
        {message.status === 'error' ? <span className="badge conv-badge-error">Failed</span> : null}
      </p>
      {message.content ? <p className="conv-text">{message.content}</p> : null}
      {asked ? <p className="muted small conv-meta">Asked for the tool calls below.</p> : null}
      {message.status === 'streaming' ? <p className="muted small conv-meta">Writing…</p> : null}
      {message.status === 'cancelled' && !message.content ? <p className="muted small conv-meta">Stopped before it wrote anything.</p> : null}
      {message.error ? (
        <div className="conv-error">
          <p>{providerProblem(message.error.code)}</p>
          <p className="small">
            {message.error.code.startsWith('MODEL_PROVIDER_') ? <>The provider said: “{message.error.message}”</> : message.error.message} <code>{message.error.code}</code>
          </p>
        </div>
      ) : null}
      {message.usage ? <p className="muted small conv-meta">Tokens: {tokens(message.usage)}</p> : null}
    </>
  );
}

const asJson = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

/** One tool call: its name, how it ended and how long it took, the arguments the model gave and the result it got back. */
function ToolCallView({ message, agentId, conversationId }: { message: ConversationMessage; agentId: string; conversationId: string | null }) {
  const call = message.toolCall!;
  const running = message.status === 'running';
  const stopped = message.status === 'cancelled';
  const ended = !running && !stopped;
  return (
    <>
      <p className="conv-who">
        Tool call <code>{call.name}</code>
      </p>
      <p className="conv-meta">
        {running ? <span className="badge off">Running…</span> : stopped ? <span className="badge off">Stopped</span> : <CallOutcome call={{ outcome: call.outcome, httpStatus: null }} />}
        {ended ? <span className="muted small"> · {call.durationMs.toLocaleString()} ms</span> : null}
        {call.callId ? (
          <span className="small">
            {' · '}
            <Link to={callLogPath(agentId, message.createdAt, conversationId)}>In the call log</Link> <code className="muted">{call.callId}</code>
          </span>
        ) : null}
      </p>
      <dl className="conv-io">
        <dt>Arguments</dt>
        <dd>
          <pre>{asJson(call.arguments)}</pre>
        </dd>
        {ended ? (
          <>
            <dt>Result</dt>
            <dd>
              <pre>{asJson(call.result)}</pre>
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}
