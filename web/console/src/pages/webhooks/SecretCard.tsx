import type { ReactNode } from 'react';
import type { CreatedWebhook } from '../../api/types';
import { ShownOnce } from '../../components/ShownOnce';

/** A webhook's signing secret, answered this once (at creation or rotation), inside the dialog that made it. */
export function SecretCard({ webhook, title, children, onDone }: { webhook: CreatedWebhook; title: ReactNode; children?: ReactNode; onDone: () => void }) {
  return (
    <ShownOnce
      titleId="webhook-secret-title"
      level={3}
      title={title}
      note="Your receiver needs it to check that a request came from Switchboard (the X-Svc-Signature header). Only Switchboard keeps a copy: if you lose it, rotate the secret."
      secret={webhook.secret}
      secretLabel="The signing secret"
      copyLabel="Copy secret"
      onDone={onDone}
    >
      {children}
    </ShownOnce>
  );
}
