import type { PipelinesTable, StagesTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { OrgChangeFeed } from '../orgs/changes.js';
import { requiredText } from '../http/required-text.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import { pipelineNotFound, stageNotFound } from './errors.js';
import type { PipelinesRepo } from './pipelines-repo.js';
import type { Pipeline, PipelineCreate, PipelinePatch } from './schema.js';

export function presentPipeline(row: PipelinesTable, stages: StagesTable[]): Pipeline {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.is_default === 1,
    stages: stages
      .filter((stage) => stage.pipeline_id === row.id)
      .sort((a, b) => a.position - b.position)
      .map((stage) => ({ id: stage.id, name: stage.name, position: stage.position })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}


function stageNames(stages: { name: string }[]): string[] {
  const names = stages.map((stage, i) => requiredText(stage.name, `stages.${i}.name`, 'a stage name'));
  const lower = names.map((name) => name.toLowerCase());
  const duplicate = lower.findIndex((name, i) => lower.indexOf(name) !== i);
  if (duplicate >= 0) throw new AppError('VALIDATION_ERROR', `Two stages are named "${names[duplicate]}". Give each stage its own name.`, { field: `stages.${duplicate}.name` });
  return names;
}

/**
 * Active forms that add opportunities to the pipeline or to one of the stages (the first few),
 * read with the repos of the caller's transaction: a question for the forms feature, so services.ts
 * injects it (the CRM does not import forms, which imports the CRM).
 */
export type ActiveFormsUsing<R> = (repos: R, orgId: string, pipelineId: string | null, stageIds: string[]) => Promise<Array<{ id: string; slug: string; title: string }>>;

/**
 * Refuses to remove a pipeline or stages that something still needs: an active form
 * (its submissions would fail) or opportunities (they would lose their place).
 */
async function assertRemovable<R extends { pipelines: PipelinesRepo }>(
  repos: R,
  activeFormsUsing: ActiveFormsUsing<R>,
  orgId: string,
  pipelineId: string | null,
  stageIds: string[],
  what: string,
): Promise<void> {
  const forms = await activeFormsUsing(repos, orgId, pipelineId, stageIds);
  const [form] = forms;
  if (form) {
    const more = forms.length > 1 ? ` and ${forms.length - 1} other active form${forms.length > 2 ? 's' : ''}` : '';
    throw new AppError('CONFLICT', `The active form "${form.title}" (${form.slug})${more} adds opportunities to ${what}. Point the form elsewhere or deactivate it first.`, {
      extra: { forms: forms.map((f) => ({ id: f.id, slug: f.slug, title: f.title })) },
    });
  }
  const count = await repos.pipelines.countOpportunitiesIn(orgId, pipelineId, stageIds);
  if (count > 0) {
    throw new AppError('CONFLICT', `${count} opportunit${count === 1 ? 'y is' : 'ies are'} in ${what}. Move ${count === 1 ? 'it' : 'them'} to another stage first.`);
  }
}

/** Pipelines with ordered stages. Every org has exactly one default pipeline, which cannot be deleted. */
/** `R`'s `orgs` locks the org's row for the pipelines limit (http/tenant-limits.ts). */
export function createPipelinesService<R extends { pipelines: PipelinesRepo; orgs: LimitLock }>(deps: {
  repo: PipelinesRepo;
  transact: Transact<R>;
  activeFormsUsing: ActiveFormsUsing<R>;
  clock: Clock;
  changes: OrgChangeFeed;
}) {
  const { repo: poolRepo, transact, activeFormsUsing, clock, changes } = deps;

  async function load(repo: PipelinesRepo, orgId: string, id: string): Promise<{ row: PipelinesTable; stages: StagesTable[] }> {
    const row = await repo.find(orgId, id);
    if (!row) throw pipelineNotFound();
    return { row, stages: await repo.stagesOf(orgId, [id]) };
  }

  async function get(orgId: string, id: string): Promise<Pipeline> {
    const { row, stages } = await load(poolRepo, orgId, id);
    return presentPipeline(row, stages);
  }

  async function list(orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    const repo = poolRepo;
    const limit = query.limit ?? 20;
    const rows = await repo.list(orgId, limit, decodeCursor(query.cursor));
    const stages = await repo.stagesOf(orgId, rows.slice(0, limit).map((row) => row.id));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, (row) => presentPipeline(row, stages));
  }

  async function create(orgId: string, input: PipelineCreate): Promise<Pipeline> {
    const name = requiredText(input.name, 'name', 'a pipeline name');
    const names = stageNames(input.stages);
    const id = await transact(async (repos) => {
      const repo = repos.pipelines;
      await refuseAtOrgLimit(repos, orgId, 'pipelines', () => repo.count(orgId));
      const now = isoNow(clock);
      if (input.isDefault === true) await repo.clearDefault(orgId);
      const row: PipelinesTable = { id: newId('pipe'), org_id: orgId, name, is_default: input.isDefault === true ? 1 : 0, created_at: now, updated_at: now };
      await repo.insert(row);
      await repo.insertStages(names.map((stageName, position) => ({ id: newId('stg'), org_id: orgId, pipeline_id: row.id, name: stageName, position })));
      return row.id;
    });
    if (input.isDefault === true) changes.notify(orgId);
    return get(orgId, id);
  }

  async function update(orgId: string, id: string, patch: PipelinePatch): Promise<Pipeline> {
    await transact(async (repos) => {
      const repo = repos.pipelines;
      const { stages } = await load(repo, orgId, id);
      const set: Parameters<PipelinesRepo['update']>[2] = { updated_at: isoNow(clock) };
      if (patch.name !== undefined) set.name = requiredText(patch.name, 'name', 'a pipeline name');
      if (patch.isDefault === true) {
        await repo.clearDefault(orgId);
        set.is_default = 1;
      }
      await repo.update(orgId, id, set);
      if (patch.stages !== undefined) await replaceStages(repos, orgId, id, stages, patch.stages);
    });
    changes.notify(orgId);
    return get(orgId, id);
  }

  /** The new list is complete and ordered: kept stages are renamed and moved, new ones added, missing ones removed. */
  async function replaceStages(repos: R, orgId: string, pipelineId: string, current: StagesTable[], wanted: { id?: string | undefined; name: string }[]) {
    const repo = repos.pipelines;
    const names = stageNames(wanted);
    const currentIds = new Set(current.map((stage) => stage.id));
    const seen = new Set<string>();
    wanted.forEach((stage, i) => {
      if (stage.id === undefined) return;
      if (!currentIds.has(stage.id)) throw new AppError('VALIDATION_ERROR', 'This is not a stage of this pipeline. Leave out the id to add a new stage.', { field: `stages.${i}.id` });
      if (seen.has(stage.id)) throw new AppError('VALIDATION_ERROR', 'A stage is listed twice.', { field: `stages.${i}.id` });
      seen.add(stage.id);
    });
    const removed = current.filter((stage) => !seen.has(stage.id));
    if (removed.length > 0) {
      await assertRemovable(repos, activeFormsUsing, orgId, null, removed.map((s) => s.id), removed.length === 1 ? `the stage "${removed[0]!.name}"` : 'stages this change removes');
      await repo.removeStages(orgId, removed.map((s) => s.id));
    }
    const added: StagesTable[] = [];
    for (const [position, stage] of wanted.entries()) {
      if (stage.id === undefined) added.push({ id: newId('stg'), org_id: orgId, pipeline_id: pipelineId, name: names[position]!, position });
      else await repo.updateStage(orgId, stage.id, { name: names[position]!, position });
    }
    await repo.insertStages(added);
  }

  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    await transact(async (repos) => {
      const repo = repos.pipelines;
      const { row, stages } = await load(repo, orgId, id);
      if (row.is_default === 1) {
        throw new AppError('CONFLICT', 'This is the default pipeline: make another pipeline the default first (PATCH it with isDefault: true).');
      }
      await assertRemovable(repos, activeFormsUsing, orgId, id, stages.map((s) => s.id), `the pipeline "${row.name}"`);
      await repo.remove(orgId, id);
    });
    changes.notify(orgId);
    return { id, deleted: true };
  }

  async function removeStage(orgId: string, pipelineId: string, stageId: string): Promise<Pipeline> {
    await transact(async (repos) => {
      const repo = repos.pipelines;
      const { stages } = await load(repo, orgId, pipelineId);
      const stage = stages.find((s) => s.id === stageId);
      if (!stage) throw stageNotFound();
      if (stages.length === 1) throw new AppError('CONFLICT', 'A pipeline needs at least one stage. Add another stage before removing this one.');
      await assertRemovable(repos, activeFormsUsing, orgId, null, [stageId], `the stage "${stage.name}"`);
      await repo.removeStages(orgId, [stageId]);
      // Keep positions 0..n-1 without gaps.
      let position = 0;
      for (const rest of stages) {
        if (rest.id === stageId) continue;
        if (rest.position !== position) await repo.updateStage(orgId, rest.id, { position });
        position++;
      }
      await repo.update(orgId, pipelineId, { updated_at: isoNow(clock) });
    });
    changes.notify(orgId);
    return get(orgId, pipelineId);
  }

  return { create, list, get, update, remove, removeStage };
}

export type PipelinesService = ReturnType<typeof createPipelinesService>;
