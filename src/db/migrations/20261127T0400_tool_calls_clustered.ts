import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The call log on SQLite becomes a `WITHOUT ROWID` table, clustered on its id. Its rows were kept
 * by rowid with a separate unique index on the text id, so every logged call inserted into five
 * B-trees (the rows, the id index and the three indexes of the listings); clustered on the id,
 * which is time-ordered (lib/ids.ts), it inserts into four, each at its right edge. Measured with
 * better-sqlite3 alone on this schema, 20 rows per statement as the call log's group commit writes
 * them under load: 15.3 µs of CPU per row before, 9.6 after (docs/benchmarks.md). Every answered
 * tool call waits for its row, so this is on the tool-call path.
 *
 * Rebuilt as SQLite rebuilds a table (create, copy, drop, rename, then the indexes again); no
 * table refers to `tool_calls`. PostgreSQL's tables have no rowid: nothing changes there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;

  await sql`create table tool_calls_new (
    id text primary key not null,
    org_id text not null,
    agent_id text not null,
    tool_id text not null,
    revision_id text not null,
    installation_id text not null,
    path text not null,
    outcome text not null,
    http_status integer,
    duration_ms integer not null,
    request_bytes integer not null,
    response_bytes integer not null,
    created_at text not null,
    conversation_id text
  ) without rowid`.execute(db);
  await sql`insert into tool_calls_new (id, org_id, agent_id, tool_id, revision_id, installation_id, path, outcome, http_status,
      duration_ms, request_bytes, response_bytes, created_at, conversation_id)
    select id, org_id, agent_id, tool_id, revision_id, installation_id, path, outcome, http_status,
      duration_ms, request_bytes, response_bytes, created_at, conversation_id from tool_calls`.execute(db);
  await db.schema.dropTable('tool_calls').execute();
  await sql`alter table tool_calls_new rename to tool_calls`.execute(db);
  await db.schema.createIndex('tool_calls_org_created_idx').on('tool_calls').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('tool_calls_tool_created_idx').on('tool_calls').columns(['tool_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('tool_calls_conversation_idx')
    .on('tool_calls')
    .columns(['conversation_id', 'created_at', 'id'])
    .where('conversation_id', 'is not', null)
    .execute();
}
