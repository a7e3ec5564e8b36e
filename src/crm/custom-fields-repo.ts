import type { Kysely } from 'kysely';
import type { CustomFieldsTable, DB } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { countOf, newestFirst } from '../db/query-helpers.js';

export interface CustomFieldFilter {
  entity?: string | undefined;
  archived?: boolean | undefined;
}

export function createCustomFieldsRepo(db: Kysely<DB>) {
  return {
    insert: (row: CustomFieldsTable) => db.insertInto('custom_fields').values(row).execute(),
    find: (orgId: string, id: string) => db.selectFrom('custom_fields').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    findByKey: (orgId: string, key: string) => db.selectFrom('custom_fields').select('id').where('org_id', '=', orgId).where('key', '=', key).executeTakeFirst(),
    /** Every definition of the org, archived ones included: what the customFields limit counts. */
    count: (orgId: string) => countOf(db.selectFrom('custom_fields').where('org_id', '=', orgId)),
    /** Active definitions of one entity: what API input is checked against. */
    activeFor: (orgId: string, entity: string) =>
      db.selectFrom('custom_fields').selectAll().where('org_id', '=', orgId).where('entity', '=', entity).where('archived_at', 'is', null).execute(),
    list: (orgId: string, filter: CustomFieldFilter, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('custom_fields')
        .selectAll()
        .where('org_id', '=', orgId)
        .$if(filter.entity !== undefined, (qb) => qb.where('entity', '=', filter.entity!))
        .$if(filter.archived === true, (qb) => qb.where('archived_at', 'is not', null))
        .$if(filter.archived === false, (qb) => qb.where('archived_at', 'is', null))
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    update: (orgId: string, id: string, changes: Partial<Pick<CustomFieldsTable, 'label' | 'options' | 'archived_at' | 'updated_at'>>) =>
      db.updateTable('custom_fields').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    remove: (orgId: string, id: string) => db.deleteFrom('custom_fields').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  };
}

export type CustomFieldsRepo = ReturnType<typeof createCustomFieldsRepo>;
