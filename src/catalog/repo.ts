import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { matchesText, newestFirst } from '../db/query-helpers.js';

export interface CatalogFilters {
  category?: string | undefined;
  q?: string | undefined;
  after?: CursorPosition | undefined;
  limit: number;
}

/**
 * Published tools only, read from their live revision, never the working copy.
 * Selects the developer's name and nothing else about them.
 */
export function createCatalogRepo(db: Kysely<DB>) {
  const published = () =>
    db
      .selectFrom('tools as t')
      .innerJoin('tool_revisions as r', 'r.id', 't.published_revision_id')
      .innerJoin('developers as d', 'd.id', 't.developer_id')
      .select([
        't.id', 't.created_at', 't.published_at', 'r.version', 'r.name', 'r.description', 'r.endpoint', 'r.method',
        'r.auth_type', 'r.api_key_header', 'r.category', 'r.parameters', 'r.oauth', 'd.name as developer_name',
      ])
      .where('t.status', '=', 'published');

  return {
    listPublished: (filters: CatalogFilters) =>
      published()
        .$if(filters.category !== undefined, (qb) => qb.where('r.category', '=', filters.category!))
        .$if(filters.q !== undefined, (qb) => qb.where((eb) => eb.or([matchesText('r.name', filters.q!), matchesText('r.description', filters.q!)])))
        .$call((qb) => newestFirst(qb, filters.limit, filters.after, 't'))
        .execute(),

    findPublished: (id: string) => published().where('t.id', '=', id).executeTakeFirst(),
    /** The live revisions of these tools (the published ones among them), for installations and the invoker. */
    findLiveRevisions: (ids: readonly string[]) =>
      db
        .selectFrom('tools as t')
        .innerJoin('tool_revisions as r', 'r.id', 't.published_revision_id')
        .select(['t.id as tool_id', 'r.id as revision_id', 'r.version', 'r.name', 'r.description', 'r.endpoint', 'r.method', 'r.auth_type', 'r.api_key_header', 'r.category', 'r.parameters', 'r.oauth', 't.oauth_client_secret'])
        .where('t.status', '=', 'published')
        .where('t.id', 'in', ids)
        .execute(),
  };
}

export type CatalogRepo = ReturnType<typeof createCatalogRepo>;
export type CatalogRow = NonNullable<Awaited<ReturnType<CatalogRepo['findPublished']>>>;
