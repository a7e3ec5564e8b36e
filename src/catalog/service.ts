import { decodeCursor, toPage } from '../http/cursor.js';
import { catalogToolNotFound } from './errors.js';
import { definitionFromRow } from '../tools/present.js';
import type { CatalogRepo, CatalogRow } from './repo.js';
import type { CatalogQuery, CatalogTool } from './schema.js';
import type { ToolDefinition } from '../tools/definition.js';

/** A published tool's live revision: what an installation calls right now. */
export interface LiveRevision {
  toolId: string;
  revisionId: string;
  version: number;
  definition: ToolDefinition;
  /** An oauth2 tool's client secret, sealed (tools/client-secret.ts): the tool's, whichever revision is live. */
  sealedClientSecret: string | null;
}

function present(row: CatalogRow): CatalogTool {
  const { endpoint, oauth, ...definition } = definitionFromRow(row);
  return {
    id: row.id,
    ...definition,
    // Where a business signs in and what it grants; the client id and token URL are the developer's business.
    oauth: oauth === null ? null : { authorizationHost: new URL(oauth.authorizationUrl).host, scopes: oauth.scopes },
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

  /**
   * The live revisions of the given tools, by tool id; drafts, withdrawn and deleted tools
   * are absent. Read on every call, so an unpublished tool stops at once and a newly
   * published revision is used from the next call on.
   */
  async function liveRevisions(toolIds: readonly string[]): Promise<Map<string, LiveRevision>> {
    const out = new Map<string, LiveRevision>();
    if (toolIds.length === 0) return out;
    for (const row of await repo.findLiveRevisions([...new Set(toolIds)])) {
      out.set(row.tool_id, { toolId: row.tool_id, revisionId: row.revision_id, version: Number(row.version), definition: definitionFromRow(row), sealedClientSecret: row.oauth_client_secret });
    }
    return out;
  }

  return { list, get, liveRevisions };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
