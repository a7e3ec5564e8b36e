import type { OpportunitiesTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { isoNow, type Clock } from '../lib/clock.js';
import type { OrgPrincipal } from '../orgs/auth.js';
import { requiredText } from '../http/required-text.js';
import { sourceOf } from './contacts-service.js';
import type { CustomFieldsRepo } from './custom-fields-repo.js';
import { checkCustomInput, mergeCustomValues } from './custom-values.js';
import { contactNotFound, opportunityNotFound } from './errors.js';
import type { OpportunitiesRepo } from './opportunities-repo.js';
import { presentOpportunity } from './present.js';
import type { Opportunity, OpportunityCreate, OpportunityListQuery, OpportunityPatch } from './schema.js';
import type { CrmRepos, CrmService, OrgSettings } from './service.js';
import { recordOpportunityEvent, type CrmEventRepos } from './webhook-events.js';


/**
 * Opportunities through the Operator API. A pipeline or stage named in a body that does not
 * exist in the org is PIPELINE_NOT_FOUND / STAGE_NOT_FOUND (422), as for forms; an unknown
 * contact is CONTACT_NOT_FOUND (404).
 */
export function createOpportunitiesService(deps: {
  repo: OpportunitiesRepo;
  customFields: CustomFieldsRepo;
  crm: CrmService;
  orgs: OrgSettings;
  /** A write and its webhook event (opportunity.created / opportunity.stage_changed) commit together. */
  transact: Transact<CrmRepos & CrmEventRepos & { opportunities: OpportunitiesRepo }>;
  clock: Clock;
}) {
  const { repo, customFields, crm, orgs, transact, clock } = deps;

  async function find(orgId: string, id: string): Promise<OpportunitiesTable> {
    const row = await repo.find(orgId, id);
    if (!row) throw opportunityNotFound();
    return row;
  }

  const customInput = (orgId: string, values: Record<string, unknown> | undefined) =>
    checkCustomInput(customFields, orgId, 'opportunity', values, () => orgs.defaultCountry(orgId));

  async function list(orgId: string, query: OpportunityListQuery) {
    const limit = query.limit ?? 20;
    const rows = await repo.list(orgId, { contactId: query.contactId, pipelineId: query.pipelineId, stageId: query.stageId }, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentOpportunity);
  }

  async function create(principal: OrgPrincipal, input: OpportunityCreate): Promise<Opportunity> {
    const { orgId } = principal;
    const title = requiredText(input.title, 'title', 'a title');
    const custom = mergeCustomValues({}, await customInput(orgId, input.custom));
    const id = await transact(async (repos) => {
      if (!(await repos.contacts.find(orgId, input.contactId))) throw contactNotFound({ field: 'contactId' });
      const target = await crm.resolveOpportunityTarget(orgId, input.pipelineId ?? null, input.stageId ?? null, repos);
      const { opportunityId } = await crm.createOpportunity({ orgId, contactId: input.contactId, ...target, title, source: sourceOf(principal), custom }, repos);
      await recordOpportunityEvent(repos, { orgId, opportunityId, type: 'opportunity.created' }, isoNow(clock));
      return opportunityId;
    });
    return presentOpportunity(await find(orgId, id));
  }

  async function update(orgId: string, id: string, patch: OpportunityPatch): Promise<Opportunity> {
    const row = await find(orgId, id);
    const changes: Parameters<typeof repo.update>[2] = { updated_at: isoNow(clock) };
    if (patch.title !== undefined) changes.title = requiredText(patch.title, 'title', 'a title');
    if (patch.pipelineId !== undefined || patch.stageId !== undefined) {
      // A stage alone implies its pipeline; a pipeline alone means its first stage.
      const target = await crm.resolveOpportunityTarget(orgId, patch.pipelineId ?? null, patch.stageId ?? null);
      changes.pipeline_id = target.pipelineId;
      changes.stage_id = target.stageId;
    }
    if (patch.custom !== undefined) {
      changes.custom = JSON.stringify(mergeCustomValues(JSON.parse(row.custom) as Record<string, unknown>, await customInput(orgId, patch.custom)));
    }
    await transact(async (repos) => {
      // The stage it leaves, read in the transaction that moves it (not the read above, which may be stale).
      const before = changes.stage_id !== undefined ? await repos.opportunities.find(orgId, id) : undefined;
      await repos.opportunities.update(orgId, id, changes);
      if (before && before.stage_id !== changes.stage_id) {
        await recordOpportunityEvent(repos, { orgId, opportunityId: id, type: 'opportunity.stage_changed', previousStageId: before.stage_id }, changes.updated_at!);
      }
    });
    return presentOpportunity(await find(orgId, id));
  }

  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const result = await repo.remove(orgId, id);
    if (Number(result.numDeletedRows) === 0) throw opportunityNotFound();
    return { id, deleted: true };
  }

  return { list, get: async (orgId: string, id: string) => presentOpportunity(await find(orgId, id)), create, update, remove };
}

export type OpportunitiesService = ReturnType<typeof createOpportunitiesService>;
