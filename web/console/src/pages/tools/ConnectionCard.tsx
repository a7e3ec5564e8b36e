import { useMutation, useQueryClient } from '@tanstack/react-query';
import { seg } from '../../api/client';
import type { CatalogTool, Installation } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { FormError } from '../../components/fields';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { afterInstallationChange, toolKeys } from './api';
import { connectAt, disconnectAt, disconnectedMessage } from './connection';
import { connectionStatus, scopesText } from './format';

/**
 * An oauth2 installation's connection (docs/operator-api.md, "Connections"): the account it acts on, the scopes
 * the provider granted and when its token was last renewed; Connect, Reconnect (a warning when the provider stopped
 * accepting it, with its reason) and Disconnect (confirmed). Never a token: the API answers none.
 */
export function ConnectionCard({ installation, tool }: { installation: Installation; tool: CatalogTool | undefined }) {
  const notify = useNotify();
  const client = useQueryClient();
  const path = `/api/org/installations/${seg(installation.id)}/connection`;
  const connect = useMutation({ mutationFn: () => connectAt(path) });
  const status = connectionStatus(installation) ?? 'not_connected';
  const connection = installation.connection;
  const toolName = installation.name ?? installation.toolName ?? 'this tool';
  const host = tool?.oauth?.authorizationHost;

  const connectButton = (label: string, primary: boolean) => (
    <button
      type="button"
      className={`button${primary ? ' primary' : ''}`}
      aria-disabled={connect.isPending || !installation.enabled || undefined}
      onClick={() => !connect.isPending && installation.enabled && connect.mutate()}
    >
      {connect.isPending ? 'Opening the provider…' : label}
    </button>
  );

  const disconnect = (
    <ConfirmButton
      label="Disconnect"
      title={`Disconnect “${toolName}”?`}
      confirmLabel="Disconnect"
      onConfirm={async () => {
        const result = await disconnectAt(path);
        await client.invalidateQueries({ queryKey: toolKeys.installation(installation.id) });
        await afterInstallationChange(client);
        notify(disconnectedMessage(result, `“${toolName}”`));
      }}
    >
      <p>Agents’ calls to this tool fail until someone connects an account again. The service deletes its tokens and asks the provider to revoke them.</p>
    </ConfirmButton>
  );

  let body;
  if (status === 'connected' && connection) {
    body = (
      <>
        <p>
          <span className="badge on">Connected</span> {connection.accountLabel ? <>as <strong>{connection.accountLabel}</strong></> : 'to an account at the provider'}
        </p>
        <dl className="kv">
          <dt>Scopes granted</dt>
          <dd>{scopesText(connection.scopes)}</dd>
          <dt>Connected</dt>
          <dd>{connection.connectedAt ? formatDateTime(connection.connectedAt) : '—'}</dd>
          <dt>Renewed</dt>
          <dd>{connection.refreshedAt ? formatDateTime(connection.refreshedAt) : 'Not yet'}</dd>
        </dl>
        <p className="hint">The service renews the access before it expires. Reconnect to use another account or to grant new scopes.</p>
        <div className="actions">
          {connectButton('Reconnect', false)}
          {disconnect}
        </div>
      </>
    );
  } else if (status === 'needs_reconnect') {
    body = (
      <>
        <div className="notice warning">
          <p>
            <strong>Needs reconnecting.</strong> The provider stopped accepting this connection{connection?.accountLabel ? <> to {connection.accountLabel}</> : null}
            {connection?.reason ? <>: {connection.reason}</> : '.'}
          </p>
          <p>
            Agents’ calls fail with <code>TOOL_CONNECTION_EXPIRED</code> until you reconnect.
          </p>
        </div>
        <div className="actions">
          {connectButton('Reconnect', true)}
          {disconnect}
        </div>
      </>
    );
  } else {
    body = (
      <>
        <p>
          <span className="badge off">Not connected</span> Agents’ calls fail until someone connects an account.
        </p>
        <p className="hint">
          {host ? <>You sign in at {host}</> : 'You sign in at the provider'}
          {tool?.oauth?.scopes.length ? <> and approve: {scopesText(tool.oauth.scopes)}</> : null}. Then the provider sends you back here.
        </p>
        <div className="actions">{connectButton('Connect', true)}</div>
      </>
    );
  }

  return (
    <section className="card tools-section" aria-labelledby="inst-connection">
      <h2 id="inst-connection" tabIndex={-1}>
        Connection
      </h2>
      {body}
      <FormError error={connect.error} />
    </section>
  );
}
