import type { ContactsTable, OpportunitiesTable } from '../db/tables.js';
import type { ContactsRepo } from './contacts-repo.js';
import type { OpportunitiesRepo } from './opportunities-repo.js';
import { presentContact, presentOpportunity } from './present.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/outbox.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';

/**
 * The CRM's webhook events (docs/webhooks.md), written through the outbox in the caller's transaction:
 * call these with the repos of the unit of work that made the change, after the change. Each payload
 * is read back from that transaction, so it is the record as committed (as GET answers it).
 * `subscriptions` (repos.webhooks.subscriptions, read once per unit) skips the read when no endpoint wants it.
 */
export interface CrmEventRepos {
  webhooks: WebhooksRepo;
  contacts: Pick<ContactsRepo, 'find'>;
  opportunities: Pick<OpportunitiesRepo, 'find'>;
}

/**
 * contact.created or contact.updated as committed; undefined when no endpoint receives it. `row`: the
 * contact exactly as this unit inserted it, when it did (nothing to read back).
 */
export async function contactEvent(
  repos: CrmEventRepos,
  subscriptions: Subscriptions,
  event: { orgId: string; contactId: string; created: boolean; row?: ContactsTable | undefined },
): Promise<WebhookEventInput | undefined> {
  const type = event.created ? 'contact.created' : 'contact.updated';
  if (!subscriptions.has(type)) return undefined;
  const row = event.row ?? (await repos.contacts.find(event.orgId, event.contactId));
  return row ? contactPayload(event.orgId, type, row) : undefined;
}

/** opportunity.created (`row`: as this unit inserted it) or opportunity.stage_changed as committed; undefined when no endpoint receives it. */
export async function opportunityEvent(
  repos: CrmEventRepos,
  subscriptions: Subscriptions,
  event: { orgId: string; opportunityId: string } & ({ type: 'opportunity.created'; row?: OpportunitiesTable | undefined } | { type: 'opportunity.stage_changed'; previousStageId: string }),
): Promise<WebhookEventInput | undefined> {
  if (!subscriptions.has(event.type)) return undefined;
  const row = (event.type === 'opportunity.created' ? event.row : undefined) ?? (await repos.opportunities.find(event.orgId, event.opportunityId));
  if (!row) return undefined;
  if (event.type === 'opportunity.created') return opportunityCreatedPayload(event.orgId, row);
  return { orgId: event.orgId, type: event.type, data: { opportunity: presentOpportunity(row), previousStageId: event.previousStageId, stageId: row.stage_id } };
}

/** contact.created or contact.updated with the contact as `row` says (the record as committed). */
export function contactPayload(orgId: string, type: 'contact.created' | 'contact.updated', row: ContactsTable): WebhookEventInput {
  return { orgId, type, data: { contact: presentContact(row) } };
}

/** opportunity.created with the opportunity as `row` says. */
export function opportunityCreatedPayload(orgId: string, row: OpportunitiesTable): WebhookEventInput {
  return { orgId, type: 'opportunity.created', data: { opportunity: presentOpportunity(row) } };
}

/** A contact's event, written now (the Operator API's own changes: one event per unit). */
export async function recordContactEvent(repos: CrmEventRepos, event: { orgId: string; contactId: string; created: boolean }, now: string): Promise<void> {
  const subscriptions = await repos.webhooks.subscriptions(event.orgId);
  const found = await contactEvent(repos, subscriptions, event);
  if (found) await recordWebhookEvents(repos, subscriptions, [found], now);
}

/** An opportunity's event, written now. */
export async function recordOpportunityEvent(repos: CrmEventRepos, event: Parameters<typeof opportunityEvent>[2], now: string): Promise<void> {
  const subscriptions = await repos.webhooks.subscriptions(event.orgId);
  const found = await opportunityEvent(repos, subscriptions, event);
  if (found) await recordWebhookEvents(repos, subscriptions, [found], now);
}
