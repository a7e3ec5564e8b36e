import type { ReactNode } from 'react';
import type { LimitUsage } from '../api/types';
import { limitState } from '../lib/limits';

/**
 * What a list page says about its limit: nothing below 80 % of it; "8 of 10 agents" from there; at the limit, that
 * its create action is unavailable and what to do. `id` describes that action (UnavailableAction).
 */
export function LimitNotice({ id, usage, noun, holder, remedy }: { id: string; usage: LimitUsage | undefined; noun: string; holder: string; remedy: string }) {
  const state = limitState(usage);
  if (state === 'none' || !usage) return null;
  const count = `${usage.used.toLocaleString()} of ${usage.limit.toLocaleString()} ${noun}`;
  return (
    <p className="notice" id={id}>
      {state === 'near' ? (
        <>
          {count}: {holder} may have {usage.limit.toLocaleString()} at most.
        </>
      ) : (
        <>
          {count}, the most {holder} may have. {remedy}, or ask your Switchboard operator to raise the limit.
        </>
      )}
    </p>
  );
}

/** A create action at its limit: its usual label, unavailable (aria-disabled, so still focusable) and described by the notice. */
export function UnavailableAction({ describedBy, children }: { describedBy: string; children: ReactNode }) {
  return (
    <button type="button" className="button primary" aria-disabled="true" aria-describedby={describedBy}>
      {children}
    </button>
  );
}
