import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useAgents } from '../../api/lists';
import type { Transcript } from '../../api/types';
import { Page } from '../../components/Page';
import { QueryState } from '../../components/QueryState';
import { formatDateTime, plural } from '../../lib/format';
import { conversationKeys, fetchTranscript, tokens } from './api';
import { MessageList } from './Messages';
import { linkablePage, sourceLabel, startedIn, utmText } from './source';
import { agentPath } from '../agents/tabs';

/** One conversation, every message in order: what was asked, each model answer and each tool call. */
export default function TranscriptPage() {
  const { id = '' } = useParams();
  const query = useQuery({ queryKey: conversationKeys.transcript(id), queryFn: ({ signal }) => fetchTranscript(id, signal) });
  return (
    <QueryState query={query} what="conversation">
      {(transcript) => <TranscriptView transcript={transcript} />}
    </QueryState>
  );
}

function TranscriptView({ transcript }: { transcript: Transcript }) {
  const agents = useAgents();
  const agent = agents.data?.find((each) => each.id === transcript.agentId);
  const name = agent?.name ?? 'an agent';
  const { pageUrl, utm } = transcript;
  const widget = transcript.source === 'widget';
  return (
    <Page
      title={`Conversation with ${name}`}
      actions={
        <Link className="button" to="/conversations">
          All conversations
        </Link>
      }
    >
      <dl className="kv card">
        <dt>Started</dt>
        <dd>
          {formatDateTime(transcript.createdAt)} {startedIn(transcript.source)}
        </dd>
        <dt>Source</dt>
        <dd>{sourceLabel(transcript.source)}</dd>
        {widget ? (
          <>
            <dt>Page</dt>
            <dd>
              {pageUrl && linkablePage(pageUrl) ? (
                <a href={pageUrl} target="_blank" rel="noopener noreferrer nofollow">
                  {pageUrl}
                </a>
              ) : (
                (pageUrl ?? 'Not sent')
              )}
            </dd>
            <dt>UTM</dt>
            <dd>{utmText(utm) || 'None'}</dd>
          </>
        ) : null}
        <dt>Agent</dt>
        <dd>{agent ? <Link to={agentPath(agent.id, 'model')}>{agent.name}</Link> : <code>{transcript.agentId}</code>}</dd>
        <dt>Messages</dt>
        <dd>{plural(transcript.messageCount, 'message')}</dd>
        <dt>Tokens</dt>
        <dd>{tokens(transcript.usage)}</dd>
        <dt>Last message</dt>
        <dd>{formatDateTime(transcript.updatedAt)}</dd>
      </dl>
      {transcript.messages.length ? (
        <MessageList messages={transcript.messages} agentId={transcript.agentId} conversationId={transcript.id} userLabel={widget ? 'Visitor' : 'User'} label="Transcript" showToolRequests />
      ) : (
        <p className="muted">No messages yet.</p>
      )}
    </Page>
  );
}
