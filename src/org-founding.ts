import { insertDefaultPipeline } from './crm/default-pipeline.js';
import type { CrmRepo } from './crm/repo.js';
import type { OperatorsRepo } from './operators/repo.js';
import type { FoundedOrg } from './orgs/service.js';

/**
 * The composition step of an org's creation (`found` of orgs/service.ts), run in the org's
 * transaction with its repos: the first operator, an owner, through the operators' repo (they write
 * users) and the default pipeline through the CRM's. It lives in the composition root because
 * orgs/ is below both features: operators/ signs up through the orgs service, crm/ reads an org's
 * settings and its change feed. services.ts passes it in; so does the orgs service of the tests.
 */
export async function foundOrg(repos: { operators: Pick<OperatorsRepo, 'insertUser'>; crm: Pick<CrmRepo, 'insertPipeline' | 'insertStages'> }, { org, owner }: FoundedOrg): Promise<void> {
  await repos.operators.insertUser(owner);
  await insertDefaultPipeline(repos.crm, org.id, org.created_at);
}
