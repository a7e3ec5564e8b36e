import { newId } from '../lib/ids.js';
import type { CrmRepo } from './repo.js';

/** Every new organization starts with this pipeline, so a form can open opportunities on day one. */
export const DEFAULT_PIPELINE = { name: 'Sales', stages: ['New', 'Qualified', 'Proposal', 'Won', 'Lost'] } as const;

/** `repo`: the CRM repo of the transaction that creates the org. */
export async function insertDefaultPipeline(repo: Pick<CrmRepo, 'insertPipeline' | 'insertStages'>, orgId: string, now: string): Promise<{ pipelineId: string }> {
  const pipelineId = newId('pipe');
  await repo.insertPipeline({ id: pipelineId, org_id: orgId, name: DEFAULT_PIPELINE.name, is_default: 1, created_at: now, updated_at: now });
  await repo.insertStages(DEFAULT_PIPELINE.stages.map((name, position) => ({ id: newId('stg'), org_id: orgId, pipeline_id: pipelineId, name, position })));
  return { pipelineId };
}
