import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { fetchAll } from '../../../api/lists';
import type { DeveloperTool } from '../../../api/types';
import { LimitNotice, UnavailableAction } from '../../../components/LimitNotice';
import { Page } from '../../../components/Page';
import { limitState, useDeveloperLimits } from '../../../lib/limits';
import { LoadError, Loading } from '../../../components/QueryState';
import { TableWrap } from '../../../components/TableWrap';
import { formatDateTime } from '../../../lib/format';
import { toolKeys } from './keys';
import './developer-tools.css';

const STATUS_LABELS: Record<DeveloperTool['status'], string> = { draft: 'Draft', published: 'Published' };

/** `developer/tools`: the developer's tools (GET /api/dev/tools with the session), newest first. */
export default function ToolsListPage() {
  const tools = useQuery({ queryKey: [...toolKeys.all, 'list'], queryFn: () => fetchAll<DeveloperTool>('/api/dev/tools') });
  const usage = useDeveloperLimits().data?.tools;
  const newTool =
    limitState(usage) === 'reached' ? (
      <UnavailableAction describedBy="tools-limit">New tool</UnavailableAction>
    ) : (
      <Link className="button primary" to="/developer/tools/new">
        New tool
      </Link>
    );
  return (
    <Page title="Your tools" intro="Tools you build for businesses’ AI agents. Drafts are yours alone; published tools are in the catalog." actions={tools.data?.length ? newTool : undefined}>
      <LimitNotice id="tools-limit" usage={usage} noun="tools" holder="your account" remedy="Delete a tool you no longer need" />
      {tools.isPending ? (
        <Loading label="Loading your tools…" />
      ) : tools.isError ? (
        <LoadError error={tools.error} retry={() => void tools.refetch()} />
      ) : tools.data.length === 0 ? (
        <div className="empty">
          <h2>No tools yet</h2>
          <p>
            A tool is an HTTPS endpoint of yours that AI agents can call: you describe what it does and the parameters it takes, and businesses enable it for their
            agents from the catalog. Start with a draft: name it, give its endpoint and parameters, and see what each model API receives. Publish when it is ready.
          </p>
          {newTool}
        </div>
      ) : (
        <TableWrap label="Your tools, scrollable">
          <table>
            <caption className="visually-hidden">Your tools</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {tools.data.map((tool) => (
                <tr key={tool.id}>
                  <td>
                    <Link to={`/developer/tools/${tool.id}`}>{tool.name}</Link>
                  </td>
                  <td>
                    <span className={`badge ${tool.status === 'published' ? 'on' : 'off'}`}>{STATUS_LABELS[tool.status]}</span>
                    {tool.hasUnpublishedChanges ? <span className="unpublished-note"> · unpublished changes</span> : null}
                  </td>
                  <td>{tool.version === 0 ? 'Never published' : `Version ${tool.version}`}</td>
                  <td>{formatDateTime(tool.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
