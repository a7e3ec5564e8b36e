import { newTimeOrderedId } from '../lib/ids.js';
import type { LeadNoticeRow } from './outbox-sql.js';
import type { NotificationsRepo } from './repo.js';

export { LEAD_NOTICE_COLUMNS, type LeadNoticeRow } from './outbox-sql.js';

/**
 * THE NOTIFICATION OUTBOX — what a producer calls to email the team about something, in its own unit of work.
 *
 * Call it inside the transaction that makes the change, with that unit's repos: the notice commits with the
 * change or not at all (a crash after the commit loses nothing: any node's worker finds the rows; a rollback
 * leaves nothing to send). One statement writes one row per recipient (an INSERT … SELECT over the members
 * and their preferences), so who is told is decided with the change, and the submit path pays no read for it.
 * The rows hold what the email is rendered from (below), not the email: the worker renders it when it sends,
 * with the recipient's current address and PUBLIC_URL.
 *
 * Without SMTP_URL nothing is queued (the composition root passes `enabled: false`): a server that cannot send
 * keeps no backlog that would flood the team the day SMTP_URL is set.
 */

/** Who a form's submissions notify: its organization's owners, or the members named (user ids). */
export type NotifyRecipients = 'owners' | string[];

/** A form's notify setting, as the Operator API has it. */
export interface NotifySetting {
  enabled: boolean;
  recipients: NotifyRecipients;
}

export const DEFAULT_NOTIFY: NotifySetting = { enabled: true, recipients: 'owners' };

/** One submitted value, labelled as the form shows it, as text. */
export interface LeadField {
  label: string;
  value: string;
}

/** What a lead email is rendered from (`kind: lead`). Submitted values stay text here: the email escapes them. */
export interface LeadPayload {
  formId: string;
  formTitle: string;
  submissionId: string;
  contactId: string;
  fields: LeadField[];
  consentVersion: string;
  /** The page the visitor was on, when known (the chat widget's page; a form's Referer). */
  pageUrl: string | null;
  /** utm_* values the submission carried, by key. */
  utm: Record<string, string>;
  /** `chat` when the lead came through the chat widget's lead card. */
  via: 'form' | 'chat';
}

/** What a hand-off email is rendered from (`kind: handoff`). */
export interface HandoffPayload {
  conversationId: string;
  agentName: string;
  pageUrl: string | null;
  /** A short summary (the visitor's last message, say), shown as text; null for none. */
  summary: string | null;
}

/** The longest value an email shows of one field, and of a hand-off summary (the rest is in the console). */
const MAX_VALUE_CHARS = 2000;

function clipped(text: string): string {
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** The row of a lead notice (pure: the transaction path and the one statement write the same). */
export function leadNoticeRow(orgId: string, recipients: NotifyRecipients, payload: LeadPayload, now: string): LeadNoticeRow {
  const shown: LeadPayload = { ...payload, fields: payload.fields.map((field) => ({ label: field.label, value: clipped(field.value) })) };
  return {
    notice_id: newTimeOrderedId('ntc', now),
    org_id: orgId,
    payload: JSON.stringify(shown),
    recipients: recipients === 'owners' ? null : JSON.stringify(recipients),
    created_at: now,
  };
}

/**
 * A lead's notice: one row per recipient who is a member of `orgId` now and has not turned lead
 * notifications off. Recipients named by id who are not (or no longer) members get nothing.
 */
export async function writeLeadNotice(repos: { notifications: NotificationsRepo }, input: { orgId: string; recipients: NotifyRecipients; payload: LeadPayload }, now: string): Promise<void> {
  await repos.notifications.insertLeadNotice(leadNoticeRow(input.orgId, input.recipients, input.payload, now));
}

/**
 * A hand-off request's notice (conversations/, when a visitor asks for a person): one row per member of the
 * organization, owners and members alike, who has not turned hand-off notifications off. The email links to
 * the conversation in the console's Inbox (`/app/inbox/{conversationId}`). Call it in the transaction that
 * moves the conversation to `waiting`, with that unit's repos.
 */
export async function writeHandoffNotice(repos: { notifications: NotificationsRepo }, input: { orgId: string } & HandoffPayload, now: string): Promise<void> {
  const payload: HandoffPayload = {
    conversationId: input.conversationId,
    agentName: input.agentName,
    pageUrl: input.pageUrl,
    summary: input.summary === null ? null : clipped(input.summary),
  };
  await repos.notifications.insertHandoffNotice({ notice_id: newTimeOrderedId('ntc', now), org_id: input.orgId, payload: JSON.stringify(payload), created_at: now });
}
