import type { Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import { countOf, newestFirst } from '../db/query-helpers.js';
import type { DB, ModelProvidersTable } from '../db/tables.js';

export type ProviderChanges = Partial<Pick<ModelProvidersTable, 'name' | 'kind' | 'base_url' | 'api_key_sealed' | 'api_key_key_id' | 'updated_at'>>;

/** Kysely queries for model providers. Every query on org data takes the org id; it writes model_providers only. */
export function createModelsRepo(db: Kysely<DB>) {
  return {
    insertProvider: (row: ModelProvidersTable) => db.insertInto('model_providers').values(row).execute(),
    findProvider: (orgId: string, id: string) =>
      db.selectFrom('model_providers').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    countProviders: (orgId: string) => countOf(db.selectFrom('model_providers').where('org_id', '=', orgId)),
    listProviders: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('model_providers')
        .selectAll()
        .where('org_id', '=', orgId)
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    updateProvider: (orgId: string, id: string, changes: ProviderChanges) =>
      db.updateTable('model_providers').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** The names of (up to `limit`) agents whose model uses the provider: agents are the orgs feature's, read here only. */
    agentsUsing: (orgId: string, id: string, limit: number) =>
      db.selectFrom('agents').select('name').where('org_id', '=', orgId).where('model_provider_id', '=', id).orderBy('name').limit(limit).execute(),
    /** Deletes the provider unless an agent uses it (checked in the same statement). */
    deleteUnused: (orgId: string, id: string) =>
      db
        .deleteFrom('model_providers')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('agents').select('agents.id').where('agents.model_provider_id', '=', id))))
        .executeTakeFirst(),

    // ── `secrets rotate` ──
    keysNotUnder: (keyId: string, limit: number) =>
      db
        .selectFrom('model_providers')
        .select(['id', 'api_key_sealed'])
        .where('api_key_sealed', 'is not', null)
        .where('api_key_key_id', '!=', keyId)
        .orderBy('id')
        .limit(limit)
        .execute(),
    /** Only if the stored value is still the one read: a key an operator replaced meanwhile stays as they set it. */
    replaceSealedKey: (id: string, sealed: string, keyId: string, previousSealed: string) =>
      db
        .updateTable('model_providers')
        .set({ api_key_sealed: sealed, api_key_key_id: keyId })
        .where('id', '=', id)
        .where('api_key_sealed', '=', previousSealed)
        .execute(),
  };
}

export type ModelsRepo = ReturnType<typeof createModelsRepo>;
