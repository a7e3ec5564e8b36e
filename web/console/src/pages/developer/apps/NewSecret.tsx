import type { ReactNode } from 'react';
import type { AppCredentials } from '../../../api/types';
import { ShownOnce } from '../../../components/ShownOnce';
import { TokenRequest } from './TokenRequest';

/** A client secret the server answered this once (registration or rotation), inside the dialog that made it. */
export function NewSecret({ app, title, children, onDone }: { app: AppCredentials; title: ReactNode; children?: ReactNode; onDone: () => void }) {
  return (
    <ShownOnce
      titleId="new-app-secret-title"
      level={3}
      title={title}
      note="Only its hash is kept: if you lose it, rotate the secret."
      secret={app.clientSecret}
      secretLabel="The new client secret"
      copyLabel="Copy secret"
      onDone={onDone}
    >
      {children}
      <p>
        Client id: <code>{app.clientId}</code>
      </p>
      <TokenRequest clientId={app.clientId} secret={app.clientSecret} />
    </ShownOnce>
  );
}
