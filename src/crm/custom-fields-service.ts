import type { CustomFieldsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { OrgChangeFeed } from '../orgs/changes.js';
import { requiredText } from '../http/required-text.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import type { CustomFieldsRepo } from './custom-fields-repo.js';
import { customFieldNotFound } from './errors.js';
import type { CustomField, CustomFieldCreate, CustomFieldEntity, CustomFieldPatch, CustomFieldType } from './schema.js';
import { isUniqueViolation } from '../db/query-helpers.js';

export function presentCustomField(row: CustomFieldsTable): CustomField {
  return {
    id: row.id,
    key: row.key,
    entity: row.entity as CustomFieldEntity,
    label: row.label,
    type: row.type as CustomFieldType,
    options: JSON.parse(row.options) as string[],
    archived: row.archived_at !== null,
    archivedAt: row.archived_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Select fields need choices, every other type must have none. */
function checkOptions(type: string, options: string[] | undefined): string[] {
  const cleaned = (options ?? []).map((option) => option.trim());
  if (type !== 'select') {
    if (cleaned.length > 0) throw new AppError('VALIDATION_ERROR', 'Only select fields have options.', { field: 'options' });
    return [];
  }
  if (cleaned.length === 0) throw new AppError('VALIDATION_ERROR', 'A select field needs at least one option.', { field: 'options' });
  if (cleaned.some((option) => option === '')) throw new AppError('VALIDATION_ERROR', 'Options cannot be blank.', { field: 'options' });
  const duplicate = cleaned.find((option, i) => cleaned.indexOf(option) !== i);
  if (duplicate !== undefined) throw new AppError('VALIDATION_ERROR', `The option "${duplicate}" is listed twice.`, { field: 'options' });
  return cleaned;
}

const keyTaken = (key: string) =>
  new AppError('CONFLICT', `A custom field with the key "${key}" already exists (archived fields keep their key). Choose another key.`, { field: 'key' });

/** Custom field definitions for contacts and opportunities. Changes reach public form configs through `changes`. */
export function createCustomFieldsService(deps: {
  repo: CustomFieldsRepo;
  /** A new field is counted against the org's limit and inserted in one transaction (`orgs` locks the org's row). */
  transact: Transact<{ customFields: CustomFieldsRepo; orgs: LimitLock }>;
  clock: Clock;
  changes: OrgChangeFeed;
}) {
  const { repo, transact, clock, changes } = deps;

  async function find(orgId: string, id: string): Promise<CustomFieldsTable> {
    const row = await repo.find(orgId, id);
    if (!row) throw customFieldNotFound();
    return row;
  }

  async function create(orgId: string, input: CustomFieldCreate): Promise<CustomField> {
    const options = checkOptions(input.type, input.options);
    if (await repo.findByKey(orgId, input.key)) throw keyTaken(input.key);
    const now = isoNow(clock);
    const row: CustomFieldsTable = {
      id: newId('cf'),
      org_id: orgId,
      key: input.key,
      entity: input.entity,
      label: requiredText(input.label, 'label', 'a label'),
      type: input.type,
      options: JSON.stringify(options),
      archived_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await transact(async (repos) => {
        await refuseAtOrgLimit(repos, orgId, 'customFields', () => repos.customFields.count(orgId));
        await repos.customFields.insert(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw keyTaken(input.key);
      throw error;
    }
    return presentCustomField(row);
  }

  async function update(orgId: string, id: string, patch: CustomFieldPatch): Promise<CustomField> {
    const row = await find(orgId, id);
    const set: Parameters<typeof repo.update>[2] = { updated_at: isoNow(clock) };
    if (patch.label !== undefined) set.label = requiredText(patch.label, 'label', 'a label');
    if (patch.options !== undefined) set.options = JSON.stringify(checkOptions(row.type, patch.options));
    await repo.update(orgId, id, set);
    changes.notify(orgId);
    return presentCustomField(await find(orgId, id));
  }

  async function setArchived(orgId: string, id: string, archived: boolean): Promise<CustomField> {
    const row = await find(orgId, id);
    if ((row.archived_at !== null) !== archived) {
      const now = isoNow(clock);
      await repo.update(orgId, id, { archived_at: archived ? now : null, updated_at: now });
      changes.notify(orgId);
    }
    return presentCustomField(await find(orgId, id));
  }

  /** Values already stored on contacts and opportunities stay as they are. */
  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const result = await repo.remove(orgId, id);
    if (Number(result.numDeletedRows) === 0) throw customFieldNotFound();
    changes.notify(orgId);
    return { id, deleted: true };
  }

  async function list(orgId: string, query: { limit?: number | undefined; cursor?: string | undefined; entity?: string | undefined; archived?: boolean | undefined }) {
    const limit = query.limit ?? 20;
    const rows = await repo.list(orgId, { entity: query.entity, archived: query.archived }, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentCustomField);
  }

  return {
    create,
    list,
    get: async (orgId: string, id: string) => presentCustomField(await find(orgId, id)),
    update,
    archive: (orgId: string, id: string) => setArchived(orgId, id, true),
    unarchive: (orgId: string, id: string) => setArchived(orgId, id, false),
    remove,
  };
}

export type CustomFieldsService = ReturnType<typeof createCustomFieldsService>;
