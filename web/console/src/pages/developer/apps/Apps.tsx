import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, seg } from '../../../api/client';
import type { DeveloperApp } from '../../../api/types';
import { ConfirmButton } from '../../../components/dialogs';
import { LimitNotice, UnavailableAction } from '../../../components/LimitNotice';
import { Page } from '../../../components/Page';
import { limitKeys, limitState, useDeveloperLimits } from '../../../lib/limits';
import { LoadError, Loading } from '../../../components/QueryState';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../../../lib/notices';
import { appKeys, orderedScopes, useApps } from './apps';
import { EditDialog } from './EditDialog';
import { RegisterDialog } from './RegisterDialog';
import { RotateDialog } from './RotateDialog';
import { TokenRequest } from './TokenRequest';

type Open = { kind: 'register' } | { kind: 'edit' | 'rotate'; app: DeveloperApp } | null;

/** The developer's OAuth apps (GET /api/dev/apps): register, edit, rotate the secret, delete; the token request for each. */
export default function AppsPage() {
  const apps = useApps();
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const usage = useDeveloperLimits().data?.apps;
  return (
    <Page
      title="Apps"
      intro="An app is the client id and secret your code exchanges for an access token to the Developer API. Use one app per program or deployment, so you can rotate or delete one alone."
      actions={
        limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="apps-limit">Register an app</UnavailableAction>
        ) : (
          <button type="button" className="button primary" onClick={() => setOpen({ kind: 'register' })}>
            Register an app
          </button>
        )
      }
    >
      <LimitNotice id="apps-limit" usage={usage} noun="apps" holder="your account" remedy="Delete an app you no longer use" />
      {apps.isPending ? (
        <Loading label="Loading your apps…" />
      ) : apps.isError ? (
        <LoadError error={apps.error} retry={() => void apps.refetch()} />
      ) : apps.data.length === 0 ? (
        <div className="empty">
          <p>You have no apps yet. Register one to get a client id and secret for the Developer API.</p>
        </div>
      ) : (
        <ul className="app-list" aria-label="Your apps">
          {apps.data.map((app) => (
            <li key={app.id}>
              <AppCard app={app} onEdit={() => setOpen({ kind: 'edit', app })} onRotate={() => setOpen({ kind: 'rotate', app })} />
            </li>
          ))}
        </ul>
      )}
      {open?.kind === 'register' ? <RegisterDialog onClose={close} /> : null}
      {open?.kind === 'edit' ? <EditDialog app={open.app} onClose={close} /> : null}
      {open?.kind === 'rotate' ? <RotateDialog app={open.app} onClose={close} /> : null}
    </Page>
  );
}

function AppCard({ app, onEdit, onRotate }: { app: DeveloperApp; onEdit: () => void; onRotate: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const titleId = `app-${app.id}-title`;
  const graceEnds = app.previousSecretExpiresAt && Date.parse(app.previousSecretExpiresAt) > Date.now() ? app.previousSecretExpiresAt : null;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {app.name}
      </h2>
      <dl className="kv">
        <dt>Client id</dt>
        <dd>
          <code>{app.clientId}</code>
        </dd>
        <dt>Scopes</dt>
        <dd>{orderedScopes(app.scopes).join(', ')}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(app.createdAt)}</dd>
        <dt>Last token</dt>
        <dd>{app.lastTokenAt ? formatDateTime(app.lastTokenAt) : 'Never'}</dd>
        {app.secretRotatedAt ? (
          <>
            <dt>Secret rotated</dt>
            <dd>
              {formatDateTime(app.secretRotatedAt)}
              {graceEnds ? `; the old secret works until ${formatDateTime(graceEnds)}` : ''}
            </dd>
          </>
        ) : null}
      </dl>
      <details className="history">
        <summary>Get an access token</summary>
        <TokenRequest clientId={app.clientId} />
      </details>
      <div className="actions">
        <button type="button" className="button small" aria-label={`Edit ${app.name}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="button small" aria-label={`Rotate secret of ${app.name}`} onClick={onRotate}>
          Rotate secret
        </button>
        <ConfirmButton
          label="Delete"
          buttonLabel={`Delete ${app.name}`}
          title={`Delete “${app.name}”?`}
          confirmLabel="Delete app"
          className="button small danger-outline"
          onConfirm={async () => {
            await api.delete(`/api/dev/apps/${seg(app.id)}`);
            await Promise.all([client.invalidateQueries({ queryKey: appKeys.all }), client.invalidateQueries({ queryKey: limitKeys.all })]);
            notify(`“${app.name}” is deleted.`);
          }}
        >
          <p>
            Its access tokens stop working at once, and its secret gets no new token: anything using client id <code>{app.clientId}</code> stops. This cannot be undone.
          </p>
        </ConfirmButton>
      </div>
    </section>
  );
}
