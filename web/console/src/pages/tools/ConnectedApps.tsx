import { useQuery, useQueryClient } from '@tanstack/react-query';
import { usePublicUrl } from '../../api/session';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmButton } from '../../components/dialogs';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { fetchMcpGrants, mcpGrantKeys, mcpUrl, revokeMcpGrant, type McpGrant } from './mcpGrants';

/** The URL to paste into an MCP host, which then has the person sign in and approve (OAuth 2.1, /app/authorize). */
export function McpUrl() {
  const url = mcpUrl(usePublicUrl());
  return (
    <>
      <h3>Connect an MCP host</h3>
      <p className="tools-mcp-url">
        <code>{url}</code> <CopyButton text={url} label="Copy MCP URL" />
      </p>
      <p className="hint">Paste this URL into Claude, ChatGPT, VS Code, Cursor or any MCP host: it asks you to sign in and approve. Agent keys still work for scripts.</p>
    </>
  );
}

/** The apps people approved for this agent on the consent page, and Revoke for each. */
export function ConnectedApps({ agentId, agentName }: { agentId: string; agentName: string }) {
  const client = useQueryClient();
  const grants = useQuery({ queryKey: mcpGrantKeys.list(agentId), queryFn: ({ signal }) => fetchMcpGrants(agentId, signal) });
  return (
    <>
      <h3>Connected apps</h3>
      {grants.isPending ? (
        <Loading />
      ) : grants.isError ? (
        <LoadError error={grants.error} retry={() => void grants.refetch()} />
      ) : grants.data.items.length === 0 ? (
        <p className="muted">No app is connected yet.</p>
      ) : (
        <GrantTable
          grants={grants.data.items}
          agentId={agentId}
          agentName={agentName}
          onRevoked={() => void client.invalidateQueries({ queryKey: mcpGrantKeys.list(agentId) })}
        />
      )}
    </>
  );
}

function GrantTable({ grants, agentId, agentName, onRevoked }: { grants: McpGrant[]; agentId: string; agentName: string; onRevoked: () => void }) {
  const notify = useNotify();
  return (
    <TableWrap label="Connected apps">
      <table>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Approved by</th>
            <th scope="col" className="tools-hide-narrow">
              Approved
            </th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {grants.map((grant) => (
            <tr key={grant.id}>
              <td className="tools-wrap">{grant.client.name}</td>
              <td className="tools-wrap">{grant.approvedBy?.name ?? '—'}</td>
              <td className="tools-hide-narrow">{formatDateTime(grant.createdAt)}</td>
              <td>{grant.lastUsedAt ? formatDateTime(grant.lastUsedAt) : 'Never'}</td>
              <td>
                <ConfirmButton
                  label="Revoke"
                  buttonLabel={`Revoke ${grant.client.name}`}
                  title={`Revoke “${grant.client.name}”?`}
                  confirmLabel="Revoke access"
                  className="button small danger-outline"
                  onConfirm={async () => {
                    await revokeMcpGrant(agentId, grant.id);
                    onRevoked();
                    notify(`“${grant.client.name}” can no longer use ${agentName}.`);
                  }}
                >
                  <p>
                    “{grant.client.name}” stops reaching {agentName}’s tools at once: its next call is refused. To connect it again, someone approves it again
                    from the app.
                  </p>
                </ConfirmButton>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
