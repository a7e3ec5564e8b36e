import type { ReactNode } from 'react';

/** A conversation's status as a badge: its words say it (the color only repeats them). */
export function StatusBadge({ status, children }: { status: string; children: ReactNode }) {
  const tone = status === 'waiting' ? 'inbox-waiting' : status === 'human' ? 'on' : 'off';
  return <span className={`badge ${tone}`}>{children}</span>;
}
