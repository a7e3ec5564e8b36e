import { decodeCursor, toPage } from '../http/cursor.js';
import { catalogToolNotFound } from './errors.js';
import { definitionFromRow } from '../tools/present.js';
import type { CatalogRepo, CatalogRow } from './repo.js';
import type { CatalogQuery, CatalogTool } from './schema.js';

function present(row: CatalogRow): CatalogTool {
  const { endpoint, ...definition } = definitionFromRow(row);
  return {
    id: row.id,
    ...definition,
    endpointHost: new URL(endpoint).host,
    version: Number(row.version),
    // Set whenever a tool becomes published.
    publishedAt: row.published_at!,
    developer: { name: row.developer_name },
  };
}

/** The public catalog: what any business can enable. Drafts do not exist here. */
export function createCatalogService(deps: { repo: CatalogRepo }) {
  const { repo } = deps;

  async function list(query: CatalogQuery) {
    const limit = query.limit ?? 20;
    const rows = await repo.listPublished({ category: query.category, q: query.q, after: decodeCursor(query.cursor), limit });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, present);
  }

  async function get(toolId: string): Promise<CatalogTool> {
    const row = await repo.findPublished(toolId);
    if (!row) throw catalogToolNotFound();
    return present(row);
  }

  return { list, get };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
