import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createMcpAuthRepo } from './repo.js';
import { mcpAuthPurges } from './service.js';

/** Registrations no grant ever used are deleted a day after they were made; used ones and newer ones stay. */
describe.each(testDialects())('purging MCP registrations and tokens on %s', (dialect) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext(dialect);
  });
  afterAll(() => t?.close());

  it('deletes never-used registrations older than a day, and expired tokens, in batches', async () => {
    const repo = createMcpAuthRepo(t.database.db);
    const now = t.clock.now();
    const ago = (hours: number) => new Date(now.getTime() - hours * 3600_000).toISOString();
    const client = (id: string, createdAt: string, usedAt: string | null) => ({ id, client_name: id, redirect_uris: '[]', created_at: createdAt, used_at: usedAt });
    await repo.insertClient(client('mcpc_old_unused', ago(25), null));
    await repo.insertClient(client('mcpc_old_used', ago(25), ago(24)));
    await repo.insertClient(client('mcpc_new_unused', ago(1), null));
    const [tokens, clients] = mcpAuthPurges(repo);
    expect(clients!.name).toBe('mcp_clients');
    expect(await clients!.purgeBatch(now, 100)).toBe(1);
    expect((await t.database.db.selectFrom('mcp_clients').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['mcpc_new_unused', 'mcpc_old_used']);
    expect(await tokens!.purgeBatch(now, 100)).toBe(0);
  });
});
