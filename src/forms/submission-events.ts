import { contactEvent, contactPayload, opportunityCreatedPayload, opportunityEvent, type CrmEventRepos } from '../crm/webhook-events.js';
import type { ContactsTable, OpportunitiesTable, SubmissionsTable } from '../db/tables.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/outbox.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';
import type { LiveForm } from './public-form.js';
import type { CheckedSubmission } from './submission-check.js';

/** The `utm` of submission.created: each of the five, null when the submission did not carry it. */
function utmOf(metadata: Record<string, string>) {
  return {
    source: metadata.utm_source ?? null,
    medium: metadata.utm_medium ?? null,
    campaign: metadata.utm_campaign ?? null,
    term: metadata.utm_term ?? null,
    content: metadata.utm_content ?? null,
  };
}

export interface SubmissionEventInput {
  form: LiveForm;
  checked: CheckedSubmission;
  submission: SubmissionsTable;
  contactCreated: boolean;
  /** The contact and opportunity as this unit inserted them, when it did: presented without reading them back. */
  contactRow?: ContactsTable | undefined;
  opportunityRow?: OpportunitiesTable | undefined;
}

/** submission.created's payload (docs/webhooks.md). */
export function submissionCreated(input: SubmissionEventInput): WebhookEventInput {
  const { form, checked, submission } = input;
  return {
    orgId: form.orgId,
    type: 'submission.created',
    data: {
      submissionId: submission.id,
      form: { id: form.id, slug: form.slug, title: form.title },
      values: checked.values,
      custom: checked.custom,
      consentVersion: form.consentVersion,
      utm: utmOf(checked.metadata),
      contact: { id: submission.contact_id, created: input.contactCreated },
      opportunityId: submission.opportunity_id,
    },
  };
}

/**
 * A submission's webhook events, in its transaction (after its rows): contact.created or
 * contact.updated, opportunity.created when it opened one, then submission.created
 * (docs/webhooks.md has the payloads), written together (two inserts).
 */
export async function recordSubmissionEvents(repos: CrmEventRepos, subscriptions: Subscriptions, input: SubmissionEventInput, now: string): Promise<void> {
  const { form, submission } = input;
  const orgId = form.orgId;
  const events = [
    await contactEvent(repos, subscriptions, { orgId, contactId: submission.contact_id, created: input.contactCreated, row: input.contactRow }),
    submission.opportunity_id === null ? undefined : await opportunityEvent(repos, subscriptions, { orgId, opportunityId: submission.opportunity_id, type: 'opportunity.created', row: input.opportunityRow }),
    subscriptions.has('submission.created') ? submissionCreated(input) : undefined,
  ].filter((event): event is WebhookEventInput => event !== undefined);
  await recordWebhookEvents(repos, subscriptions, events, now);
}

/**
 * A new person's events from the rows the one statement writes (new-lead-statement.ts): the records exactly
 * as committed, nothing to read back; the same three recordSubmissionEvents writes on the transaction path.
 */
export function newLeadEvents(subscriptions: Subscriptions, input: SubmissionEventInput & { contactRow: ContactsTable }): WebhookEventInput[] {
  const orgId = input.form.orgId;
  const events: WebhookEventInput[] = [];
  if (subscriptions.has('contact.created')) events.push(contactPayload(orgId, 'contact.created', input.contactRow));
  if (input.opportunityRow && subscriptions.has('opportunity.created')) events.push(opportunityCreatedPayload(orgId, input.opportunityRow));
  if (subscriptions.has('submission.created')) events.push(submissionCreated(input));
  return events;
}
