import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import type { DeveloperTool } from '../../../api/types';
import { CallsSection } from './CallsSection';
import { PublishSection } from './PublishSection';
import { RevisionHistory } from './RevisionHistory';
import { StatsSection } from './StatsCharts';
import { TestSection } from './TestSection';
import { fetchDeveloperTool, fetchRevisions, toolPageKeys } from './toolPageApi';
import { useConnectedNotice } from '../../tools/connection';
import '../../crm/crm.css';
import '../../tools/tools.css';
import './tool-page.css';

/**
 * One of the developer's tools (docs/developer-portal.md, "The tool page: publish, test, calls"):
 * publishing with a diff, the revision history, a test call, and the calls with their statistics.
 */
export default function ToolPage() {
  const { id = '' } = useParams();
  const tool = useQuery({ queryKey: toolPageKeys.tool(id), queryFn: ({ signal }) => fetchDeveloperTool(id, signal) });
  // The way back from the provider after connecting a test account.
  useConnectedNotice('Test account connected. Test calls now send its token.');
  return (
    <QueryState query={tool} what="tool">
      {(data) => <ToolPageContent tool={data} />}
    </QueryState>
  );
}

function ToolPageContent({ tool }: { tool: DeveloperTool }) {
  const revisions = useInfiniteQuery({
    queryKey: toolPageKeys.revisions(tool.id),
    queryFn: ({ pageParam, signal }) => fetchRevisions(tool.id, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const loaded = revisions.data?.pages.flatMap((page) => page.items) ?? [];
  // The diff is against the live revision; for a withdrawn tool, against the latest one (newest first).
  const latest = loaded.find((revision) => revision.live) ?? loaded[0];
  return (
    <Page
      title={tool.name}
      intro={
        <>
          {tool.description} <Link to="/developer/tools">All your tools</Link>
        </>
      }
    >
      {revisions.isPending ? null : <PublishSection tool={tool} latest={latest} />}
      <TestSection tool={tool} />
      <StatsSection toolId={tool.id} />
      <CallsSection toolId={tool.id} />
      <RevisionHistory query={revisions} />
    </Page>
  );
}
