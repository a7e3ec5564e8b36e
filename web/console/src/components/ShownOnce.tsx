import { useEffect, useRef, type ReactNode } from 'react';
import { CopyButton } from './CopyButton';

/**
 * A new secret (an API key, an agent key) that the server shows only this once: the card says so, shows
 * it, copies it, and goes away on "I have stored it". It takes focus when it appears (or the secret
 * changes), so a screen reader reads it out and the copy button is one Tab away. `children` go between
 * the secret and the buttons; `actions` beside the copy button.
 */
export function ShownOnce({
  titleId,
  title,
  level = 2,
  note,
  secret,
  secretLabel,
  copyLabel = 'Copy key',
  children,
  actions,
  onDone,
}: {
  titleId: string;
  title: ReactNode;
  /** The heading level the card sits at on its page (3 in a dialog, under its title). */
  level?: 2 | 3 | 4;
  /** Said after "Copy it now", such as how to send the secret. */
  note?: ReactNode;
  secret: string;
  /** The secret's accessible name, such as "The new API key". */
  secretLabel: string;
  /** The copy button's name, such as "Copy secret". */
  copyLabel?: string;
  children?: ReactNode;
  actions?: ReactNode;
  onDone: () => void;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [secret]);
  const Heading = level === 4 ? 'h4' : level === 3 ? 'h3' : 'h2';
  return (
    <section className="card success-card" aria-labelledby={titleId} tabIndex={-1} ref={ref}>
      <Heading id={titleId}>{title}</Heading>
      <p>
        <strong>Copy it now: it is shown only this once.</strong>
        {note ? <> {note}</> : null}
      </p>
      <code className="secret" aria-label={secretLabel}>
        {secret}
      </code>
      {children}
      <div className="actions">
        <CopyButton text={secret} label={copyLabel} className="button primary" />
        {actions}
        <button type="button" className="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
