import type { ToolsTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { toolNotFound } from './errors.js';
import { checkEndpoint, type EndpointPolicy } from '../net/endpoint-check.js';
import { definitionFromRow, sameDefinition } from './present.js';
import { checkOAuthUrls } from './oauth-settings.js';
import type { ToolChangeFeed } from './changes.js';
import type { DefinitionColumns, ToolsRepo } from './repo.js';
import type { ToolRecord } from './schema.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditLog } from '../audit/service.js';

interface PublishingDeps {
  repo: ToolsRepo;
  clock: Clock;
  endpointPolicy: EndpointPolicy;
  ownedRow(developerId: string, toolId: string): Promise<ToolsTable>;
  present(row: ToolsTable): ToolRecord;
  /** Told after a publish or withdrawal commits (caches of agents' callable tools drop the tool). */
  liveChanges?: Pick<ToolChangeFeed, 'notify'> | undefined;
  /** Recorded right after the change commits (the tools repo writes it in its own transaction). */
  audit: AuditLog;
}

function definitionColumns(row: ToolsTable): DefinitionColumns {
  const { name, description, endpoint, method, auth_type, api_key_header, category, parameters, oauth } = row;
  return { name, description, endpoint, method, auth_type, api_key_header, category, parameters, oauth };
}

/**
 * Publishing copies the working copy into a new immutable revision, which the catalog
 * and agents read. When the working copy equals the latest revision no new revision is
 * made: an already published tool stays as it is, a withdrawn one goes live again.
 */
export function createPublishing(deps: PublishingDeps) {
  const { repo, clock, endpointPolicy, ownedRow, liveChanges, present: presentTool, audit } = deps;

  async function publish(developerId: string, toolId: string, context: AuditContext): Promise<ToolRecord> {
    const row = await ownedRow(developerId, toolId);
    // Re-checked on every publish: DNS may have changed since the endpoint was saved.
    const definition = definitionFromRow(row);
    await checkEndpoint(definition.endpoint, endpointPolicy, 'publish');
    if (definition.oauth !== null) await checkOAuthUrls(definition.oauth, endpointPolicy, 'publish');

    const columns = definitionColumns(row);
    const version = Number(row.version);
    const latest = version > 0 ? await repo.findRevision(developerId, toolId, version) : undefined;
    const unchanged = latest !== undefined && sameDefinition(columns, latest);
    if (unchanged && row.status === 'published') return presentTool(row);

    const now = isoNow(clock);
    const revision = unchanged ? undefined : { id: newId('rev'), tool_id: toolId, version: version + 1, ...columns, created_at: now };
    const changes = {
      status: 'published',
      version: revision?.version ?? version,
      published_revision_id: revision?.id ?? latest!.id,
      has_unpublished_changes: 0,
      published_at: now,
      updated_at: now,
    };
    if (!(await repo.publish(developerId, toolId, { ...columns, version }, changes, revision))) {
      throw new AppError('CONFLICT', 'The tool changed while it was being published. Check the latest version and publish again.');
    }
    liveChanges?.notify(toolId);
    await audit.record(context, { action: 'tool.published', developerId, target: toolId, details: { name: row.name, version: changes.version } });
    return presentTool({ ...row, ...changes });
  }

  /** Withdraws a tool from the catalog; its revisions are kept for when it is published again. */
  async function unpublish(developerId: string, toolId: string, context: AuditContext): Promise<ToolRecord> {
    const row = await ownedRow(developerId, toolId);
    if (row.status === 'draft') return presentTool(row);
    const changes = { status: 'draft', published_revision_id: null, updated_at: isoNow(clock) };
    if ((await repo.updateTool(developerId, toolId, changes)) === 'missing') throw toolNotFound();
    liveChanges?.notify(toolId);
    await audit.record(context, { action: 'tool.withdrawn', developerId, target: toolId, details: { name: row.name, version: Number(row.version) } });
    return presentTool({ ...row, ...changes });
  }

  return { publish, unpublish };
}
