import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import type { ToolCallsTable } from '../db/tables.js';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { createInvocationRepo } from './repo.js';

/** The call log's batched insert (one statement per batch of up to 64 rows) writes every row of a batch exactly, whatever its size, and a batch whole or not at all. */
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
    conversation_id: i % 4 ? null : `conv_${batch}_${i}`,
  });

  it.each([1, 2, 37, 63, 64, 65, 130])('writes a batch of %i rows', async (size) => {
    const rows = Array.from({ length: size }, (_, i) => row(size, i));
    await createInvocationRepo(database.db).insertCalls(rows);
    const stored = await database.db.selectFrom('tool_calls').selectAll().where('org_id', '=', `org_${size}`).orderBy('id').execute();
    expect(stored.map((r) => ({ ...r, http_status: r.http_status === null ? null : Number(r.http_status), duration_ms: Number(r.duration_ms), request_bytes: Number(r.request_bytes), response_bytes: Number(r.response_bytes) }))).toEqual(rows);
  });

  it('writes a batch whole or not at all: a row the database refuses leaves the others of its statement unwritten', async () => {
    const repo = createInvocationRepo(database.db);
    await repo.insertCalls([row(7, 0)]);
    // Nine new rows, then one whose id is taken.
    const batch = [...Array.from({ length: 9 }, (_, i) => row(8, i)), { ...row(8, 9), id: row(7, 0).id }];
    await expect(repo.insertCalls(batch)).rejects.toThrow();
    expect(await database.db.selectFrom('tool_calls').select('id').where('org_id', '=', 'org_8').execute()).toEqual([]);
  });
});
