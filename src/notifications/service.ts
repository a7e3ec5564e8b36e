import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { writeHandoffNotice, type HandoffPayload } from './outbox.js';
import type { NotificationsRepo } from './repo.js';
import type { NotificationSettings, NotificationSettingsPatch } from './schema.js';

/** Who asks: the Operator API's principal (orgs/auth.ts), as this feature reads it. */
export interface SettingsCaller {
  orgId: string;
  actor: { type: 'api_key' | 'user'; id: string };
}

/** Settings are a person's: an API key speaks for the organization, and has none. */
export const SETTINGS_NEED_A_PERSON = 'Notification settings are each member’s own: sign in to the console to see or change yours. An API key speaks for the organization, not for a member.';

/**
 * A member's notification settings, and whether notifications are on at all (`enabled`: SMTP_URL is set, so
 * there is a mailer). Producers write notices through outbox.ts; `handoffRequested` is that, gated on `enabled`,
 * for the conversations feature (the composition root passes it in).
 */
export function createNotificationsService(deps: { repo: NotificationsRepo; clock: Clock; enabled: boolean }) {
  const { repo, clock, enabled } = deps;

  function person(caller: SettingsCaller): string {
    if (caller.actor.type !== 'user') throw new AppError('UNAUTHORIZED', SETTINGS_NEED_A_PERSON);
    return caller.actor.id;
  }

  async function settings(caller: SettingsCaller): Promise<NotificationSettings> {
    const row = await repo.findPreferences(person(caller));
    return { smtpConfigured: enabled, leads: row ? row.leads === 1 : true, handoffs: row ? row.handoffs === 1 : true };
  }

  async function update(caller: SettingsCaller, patch: NotificationSettingsPatch): Promise<NotificationSettings> {
    const userId = person(caller);
    const current = await settings(caller);
    const leads = patch.leads ?? current.leads;
    const handoffs = patch.handoffs ?? current.handoffs;
    await repo.upsertPreferences({ user_id: userId, org_id: caller.orgId, leads: leads ? 1 : 0, handoffs: handoffs ? 1 : 0, updated_at: clock.now().toISOString() });
    return { smtpConfigured: enabled, leads, handoffs };
  }

  /**
   * A visitor asked for a person: every member who has hand-off notices on is emailed (nothing is queued without
   * SMTP_URL). Call it in the transaction that moves the conversation to `waiting`, with that unit's repos.
   */
  async function handoffRequested(repos: { notifications: NotificationsRepo }, input: { orgId: string } & HandoffPayload): Promise<void> {
    if (!enabled) return;
    await writeHandoffNotice(repos, input, clock.now().toISOString());
  }

  return { enabled, settings, update, handoffRequested };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
