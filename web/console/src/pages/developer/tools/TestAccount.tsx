import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { DeveloperTool } from '../../../api/types';
import { FormError } from '../../../components/fields';
import { LoadError, Loading } from '../../../components/QueryState';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../../../lib/notices';
import { connectAt, disconnectAt, disconnectedMessage } from '../../tools/connection';
import { scopesText } from '../../tools/format';
import { fetchTestConnection, testConnectionPath, toolPageKeys } from './toolPageApi';

/**
 * An oauth2 tool's test account, in its Test: the developer's own connection at the provider (the working copy's
 * settings), never shared with any organization; test calls send its token. Connect, Reconnect, Disconnect.
 */
export function TestAccount({ tool }: { tool: DeveloperTool }) {
  const client = useQueryClient();
  const notify = useNotify();
  const ready = tool.oauth?.hasClientSecret ?? false;
  const path = testConnectionPath(tool.id);
  const status = useQuery({ queryKey: toolPageKeys.testConnection(tool.id), queryFn: ({ signal }) => fetchTestConnection(tool.id, signal), enabled: ready });
  const connect = useMutation({ mutationFn: () => connectAt(path) });
  const disconnect = useMutation({
    mutationFn: () => disconnectAt(path),
    onSuccess: async (result) => {
      await client.invalidateQueries({ queryKey: toolPageKeys.testConnection(tool.id) });
      notify(disconnectedMessage(result, 'Your test account'));
      // The Disconnect button went with the connection: focus goes to the heading of what replaced it.
      setTimeout(() => document.getElementById('tool-test-account-title')?.focus(), 30);
    },
  });

  const connectButton = (label: string, primary = true) => (
    <button type="button" className={`button${primary ? ' primary' : ''}`} aria-disabled={connect.isPending || undefined} onClick={() => !connect.isPending && connect.mutate()}>
      {connect.isPending ? 'Opening the provider…' : label}
    </button>
  );
  const disconnectButton = (
    <button type="button" className="button danger-outline" aria-disabled={disconnect.isPending || undefined} onClick={() => !disconnect.isPending && disconnect.mutate()}>
      {disconnect.isPending ? 'Disconnecting…' : 'Disconnect'}
    </button>
  );

  let body;
  if (!ready) {
    body = (
      <p className="muted">
        Save the tool’s OAuth settings with your client secret (<Link to={`/developer/tools/${tool.id}/edit`}>edit the tool</Link>), then connect a test account here.
      </p>
    );
  } else if (status.isPending) body = <Loading />;
  else if (status.isError) body = <LoadError error={status.error} retry={() => void status.refetch()} />;
  else {
    const connection = status.data;
    if (connection.status === 'connected') {
      body = (
        <>
          <p>
            <span className="badge on">Connected</span> {connection.accountLabel ? <>as <strong>{connection.accountLabel}</strong></> : 'to an account at the provider'} · scopes{' '}
            {scopesText(connection.scopes)}
            {connection.refreshedAt ? <> · renewed {formatDateTime(connection.refreshedAt)}</> : null}
          </p>
          <div className="actions">
            {connectButton('Reconnect', false)}
            {disconnectButton}
          </div>
        </>
      );
    } else if (connection.status === 'needs_reconnect') {
      body = (
        <>
          <div className="notice warning">
            <p>
              <strong>Needs reconnecting.</strong> The provider stopped accepting your test account’s connection{connection.reason ? <>: {connection.reason}</> : '.'}
            </p>
          </div>
          <div className="actions">
            {connectButton('Reconnect test account')}
            {disconnectButton}
          </div>
        </>
      );
    } else {
      body = (
        <>
          <p>Test calls act on your own account at the provider, never a business’s. You sign in there and approve the tool’s scopes, then come back here.</p>
          <div className="actions">{connectButton('Connect a test account')}</div>
        </>
      );
    }
  }

  return (
    <div className="tool-test-account">
      <h3 id="tool-test-account-title" tabIndex={-1}>
        Test account
      </h3>
      {body}
      <FormError error={connect.error ?? disconnect.error} />
    </div>
  );
}
