import { recordContactEvent, recordOpportunityEvent, type CrmEventRepos } from '../crm/webhook-events.js';
import type { SubmissionsTable } from '../db/tables.js';
import { recordWebhookEvent } from '../webhooks/outbox.js';
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

/**
 * A submission's webhook events, in its transaction (after its rows): contact.created or
 * contact.updated, opportunity.created when it opened one, then submission.created
 * (docs/webhooks.md has the payloads). `subscribed`: what the org's endpoints receive.
 */
export async function recordSubmissionEvents(
  repos: CrmEventRepos,
  subscribed: ReadonlySet<string>,
  input: { form: LiveForm; checked: CheckedSubmission; submission: SubmissionsTable; contactCreated: boolean },
  now: string,
): Promise<void> {
  const { form, checked, submission } = input;
  const orgId = form.orgId;
  await recordContactEvent(repos, subscribed, { orgId, contactId: submission.contact_id, created: input.contactCreated }, now);
  if (submission.opportunity_id !== null) {
    await recordOpportunityEvent(repos, subscribed, { orgId, opportunityId: submission.opportunity_id, type: 'opportunity.created' }, now);
  }
  if (!subscribed.has('submission.created')) return;
  await recordWebhookEvent(repos, {
    orgId,
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
  }, now);
}
