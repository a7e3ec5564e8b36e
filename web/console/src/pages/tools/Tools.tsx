import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useAgents } from '../../api/lists';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { fetchInstallations, toolKeys } from './api';
import type { Installation } from '../../api/types';
import { agentNames, credentialsCell, installationHint } from './format';
import './tools.css';

/** The organization's installations: what agents call each tool, which agents, credentials, status. */
export default function ToolsPage() {
  const installations = useQuery({ queryKey: toolKeys.installations, queryFn: fetchInstallations });
  const agents = useAgents();
  const items = installations.data ?? [];
  const missing = items.filter((item) => item.enabled && credentialsCell(item).needed).length;
  return (
    <Page
      title="Tools"
      intro="Tools your agents can call: each one a developer published to the catalog, enabled here with your credentials."
      actions={
        <>
          <Link className="button" to="/tool-calls">
            Call log
          </Link>
          <Link className="button primary" to="/tools/catalog">
            Add a tool
          </Link>
        </>
      }
    >
      {installations.isPending ? (
        <Loading />
      ) : installations.isError ? (
        <LoadError error={installations.error} retry={() => void installations.refetch()} />
      ) : items.length === 0 ? (
        <div className="empty">
          <h2>No tools yet</h2>
          <p>Find a tool in the catalog and enable it for your agents. You can enter its credentials at the same time.</p>
          <Link className="button primary" to="/tools/catalog">
            Browse the catalog
          </Link>
        </div>
      ) : (
        <>
          {missing ? (
            <p className="notice">
              {missing === 1
                ? '1 tool needs credentials or a connected account before agents can use it. Open it to set it up.'
                : `${missing} tools need credentials or a connected account before agents can use them. Open each to set it up.`}
            </p>
          ) : null}
          <TableWrap label="Tools">
            <table>
              <caption className="visually-hidden">Your tools</caption>
              <thead>
                <tr>
                  <th scope="col">Name agents call</th>
                  <th scope="col" className="tools-hide-narrow">
                    Tool
                  </th>
                  <th scope="col">Agents</th>
                  <th scope="col">Credentials</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => {
                  const hint = installationHint(item);
                  return (
                    <tr key={item.id}>
                      <td className="tools-wrap">
                        <Link to={`/tools/${encodeURIComponent(item.id)}`}>
                          <code>{item.name ?? item.toolId}</code>
                        </Link>
                      </td>
                      <td className="tools-wrap tools-hide-narrow">{item.toolName ?? <span className="muted">Not published</span>}</td>
                      <td className="tools-wrap">{agentNames(item, agents.data)}</td>
                      <td>{cell(item)}</td>
                      <td>
                        {item.enabled ? <span className="badge on">Enabled</span> : <span className="badge off">Withdrawn</span>}
                        {hint ? <p className="hint tools-row-hint">{hint}</p> : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </Page>
  );
}

function cell(item: Installation) {
  const { text, needed } = credentialsCell(item);
  return needed ? <strong>{text}</strong> : text;
}
