import type { ContactsRepo } from './contacts-repo.js';
import type { OpportunitiesRepo } from './opportunities-repo.js';
import { presentContact, presentOpportunity } from './present.js';
import { recordWebhookEvent } from '../webhooks/outbox.js';
import type { WebhooksRepo } from '../webhooks/repo.js';

/**
 * The CRM's webhook events (docs/webhooks.md), written through the outbox in the caller's transaction:
 * call these with the repos of the unit of work that made the change, after the change. Each payload
 * is read back from that transaction, so it is the record as committed (as GET answers it).
 * `subscribed` (repos.webhooks.subscribedTypes, read once per unit) skips the read when no endpoint wants it.
 */
export interface CrmEventRepos {
  webhooks: WebhooksRepo;
  contacts: Pick<ContactsRepo, 'find'>;
  opportunities: Pick<OpportunitiesRepo, 'find'>;
}

export async function recordContactEvent(
  repos: CrmEventRepos,
  subscribed: ReadonlySet<string>,
  event: { orgId: string; contactId: string; created: boolean },
  now: string,
): Promise<void> {
  const type = event.created ? 'contact.created' : 'contact.updated';
  if (!subscribed.has(type)) return;
  const row = await repos.contacts.find(event.orgId, event.contactId);
  if (row) await recordWebhookEvent(repos, { orgId: event.orgId, type, data: { contact: presentContact(row) } }, now);
}

export async function recordOpportunityEvent(
  repos: CrmEventRepos,
  subscribed: ReadonlySet<string>,
  event: { orgId: string; opportunityId: string } & ({ type: 'opportunity.created' } | { type: 'opportunity.stage_changed'; previousStageId: string }),
  now: string,
): Promise<void> {
  if (!subscribed.has(event.type)) return;
  const row = await repos.opportunities.find(event.orgId, event.opportunityId);
  if (!row) return;
  const opportunity = presentOpportunity(row);
  const data = event.type === 'opportunity.created'
    ? { opportunity }
    : { opportunity, previousStageId: event.previousStageId, stageId: row.stage_id };
  await recordWebhookEvent(repos, { orgId: event.orgId, type: event.type, data }, now);
}
