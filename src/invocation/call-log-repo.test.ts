import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import type { ToolCallsTable } from '../db/tables.js';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { createInvocationRepo } from './repo.js';

/** The call log's batched insert (templates of 50 rows, then single rows) writes every row of a batch exactly, whatever its size. */
describe.each(testDialects())('call log insert on %s', (dialect) => {
  let database: Database;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase(dialect));
  });
  afterAll(() => dispose());

  const row = (batch: number, i: number): ToolCallsTable => ({
    id: `call_${batch}_${String(i).padStart(4, '0')}`, org_id: `org_${batch}`, agent_id: 'agt_1', tool_id: 'tool_1', revision_id: 'rev_1',
    installation_id: 'inst_1', path: i % 2 ? 'mcp' : 'operator', outcome: i % 3 ? 'OK' : 'TOOL_TIMEOUT', http_status: i % 3 ? 200 : null,
    duration_ms: i, request_bytes: 100 + i, response_bytes: 200 + i, created_at: new Date(Date.UTC(2026, 10, 23, 12, 0, i % 60)).toISOString(),
  });

  it.each([1, 49, 50, 51, 120, 200])('writes a batch of %i rows', async (size) => {
    const rows = Array.from({ length: size }, (_, i) => row(size, i));
    await createInvocationRepo(database.db).insertCalls(rows);
    const stored = await database.db.selectFrom('tool_calls').selectAll().where('org_id', '=', `org_${size}`).orderBy('id').execute();
    expect(stored.map((r) => ({ ...r, http_status: r.http_status === null ? null : Number(r.http_status), duration_ms: Number(r.duration_ms), request_bytes: Number(r.request_bytes), response_bytes: Number(r.response_bytes) }))).toEqual(rows);
  });
});
