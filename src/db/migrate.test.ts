import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { openDatabase, type Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';
import { randomBase62 } from '../lib/ids.js';

describe.each(testDialects())('migrations on %s', (dialect) => {
  it('apply once and are a no-op the second time', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    try {
      expect((await migrateToLatest(database.db)).applied).toEqual([]);
      const applied = await database.db.selectFrom('schema_migrations' as never).select('name' as never).execute();
      expect(applied.map((row) => (row as { name: string }).name)).toEqual(Object.keys(migrations).sort());
    } finally {
      await dispose();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('migrations on PostgreSQL with several schemas', () => {
  it('migrate the schema in use even when another schema already has the tables', async () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const schemas = [`m_${randomBase62(10).toLowerCase()}`, `m_${randomBase62(10).toLowerCase()}`];
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const schema of schemas) await admin.query(`create schema ${schema}`);
      for (const schema of schemas) {
        const database = openDatabase({ databaseUrl: url, pgSchema: schema, pgPoolSize: 1 });
        try {
          expect((await migrateToLatest(database.db)).applied).toEqual(Object.keys(migrations).sort());
          expect(await database.db.selectFrom('tools').selectAll().execute()).toEqual([]);
        } finally {
          await database.close();
        }
      }
    } finally {
      for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});

/** Migrations up to and including `last`, on a database that has none yet (the state a deployment was in). */
async function migrateUpTo(db: Kysely<any>, last: string, schema?: string): Promise<void> {
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= last));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => earlier },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** A fresh, unmigrated database of the dialect: SQLite in a temp dir, or a new PostgreSQL schema. */
async function emptyDatabase(dialect: string): Promise<{ database: Database; schema?: string; dispose(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-migrate-'));
    const database = openDatabase({ sqliteFile: join(dir, 'test.db') });
    return { database, dispose: async () => { await database.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const url = process.env.TEST_DATABASE_URL as string;
  const schema = `m_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const database = openDatabase({ databaseUrl: url, pgSchema: schema, pgPoolSize: 1 });
  return {
    database,
    schema,
    dispose: async () => {
      await database.close();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    },
  };
}

describe.each(testDialects())('20261126T1000_people_and_developers on %s', (dialect) => {
  const at = '2026-11-20T10:00:00.000Z';
  const later = '2026-12-20T10:00:00.000Z';
  /** Before: an org with two operators (one also a CLI-made developer, by email), and a developer nobody else is. */
  const seed: Record<string, Record<string, unknown>[]> = {
    orgs: [{ id: 'org_a', name: 'Acme', default_country: 'US', created_at: at }],
    users: [
      { id: 'usr_owner', org_id: 'org_a', email: 'owner@example.com', name: 'Olga Owner', password_hash: 'scrypt$owner', created_at: at, role: 'owner' },
      { id: 'usr_both', org_id: 'org_a', email: 'both@example.com', name: 'Bo Both', password_hash: 'scrypt$console', created_at: at, role: 'member' },
    ],
    sessions: [
      { id: 'ses_1', token_hash: 'h1', user_id: 'usr_owner', org_id: 'org_a', csrf_secret: 'c1', created_at: at, last_seen_at: at, expires_at: later, revoked_at: null },
      { id: 'ses_2', token_hash: 'h2', user_id: 'usr_both', org_id: 'org_a', csrf_secret: 'c2', created_at: at, last_seen_at: at, expires_at: later, revoked_at: at },
    ],
    password_resets: [{ token_hash: 'r1', user_id: 'usr_both', created_at: at, expires_at: later, used_at: null }],
    invitations: [{ id: 'inv_1', org_id: 'org_a', email: 'new@example.com', token_hash: 'i1', invited_by: 'usr_owner', created_at: at, expires_at: later, accepted_at: null, revoked_at: null }],
    developers: [
      { id: 'dev_lone', email: 'lone@example.com', name: 'Lone Tools Ltd', password_hash: 'scrypt$lone', created_at: at },
      { id: 'dev_both', email: 'both@example.com', name: 'Both Tools', password_hash: 'scrypt$cli', created_at: at },
    ],
    apps: [
      { id: 'app_1', developer_id: 'dev_lone', name: 'CI', client_secret_hash: 's1', scopes: 'tools:read', created_at: at, secret_rotated_at: null, disabled_at: null },
      { id: 'app_2', developer_id: 'dev_both', name: 'Deploy', client_secret_hash: 's2', scopes: 'tools:write', created_at: at, secret_rotated_at: at, disabled_at: null },
    ],
    access_tokens: [{ token_hash: 't1', app_id: 'app_1', developer_id: 'dev_lone', scopes: 'tools:read', created_at: at, expires_at: later, revoked_at: null }],
    tools: [{
      id: 'tool_1', developer_id: 'dev_both', name: 'weather', description: 'Weather', endpoint: 'https://example.com/w', method: 'POST', auth_type: 'none', api_key_header: null,
      category: 'other', parameters: '[]', status: 'published', version: 1, published_revision_id: 'rev_1', has_unpublished_changes: 0, created_at: at, updated_at: at, published_at: at,
    }],
    tool_revisions: [{
      id: 'rev_1', tool_id: 'tool_1', version: 1, name: 'weather', description: 'Weather', endpoint: 'https://example.com/w', method: 'POST', auth_type: 'none', api_key_header: null,
      category: 'other', parameters: '[]', created_at: at,
    }],
  };
  const kept = ['orgs', 'sessions', 'password_resets', 'invitations', 'apps', 'access_tokens', 'tools', 'tool_revisions'];

  async function rows(db: Kysely<any>, table: string) {
    const all = await db.selectFrom(table).selectAll().execute();
    // PostgreSQL returns integer columns as numbers too; order by the first column for a stable comparison.
    return all.sort((a, b) => String(Object.values(a)[0]).localeCompare(String(Object.values(b)[0])));
  }

  it('turns each developer into a person, keeps every row and reference, and leaves no dangling key', async () => {
    const { database, schema, dispose } = await emptyDatabase(dialect);
    const db = database.db as Kysely<any>;
    try {
      await migrateUpTo(db, '20261123T1400_accounts_sessions', schema);
      for (const [table, values] of Object.entries(seed)) await db.insertInto(table).values(values).execute();
      const before = Object.fromEntries(await Promise.all(kept.map(async (table) => [table, await rows(db, table)] as const)));

      // This migration alone: later ones (20261126T1100_app_secret_rotation adds apps' columns) have tests of their own.
      const upToThis = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= '20261126T1000_people_and_developers'));
      expect((await migrateToLatest(db, upToThis)).applied).toEqual(['20261126T1000_people_and_developers']);

      for (const table of kept) expect(await rows(db, table), table).toEqual(before[table]);
      const users = await rows(db, 'users');
      // The operators are as they were; the lone developer is a person without an organization, with its password.
      expect(users.filter((u) => u.id === 'usr_owner' || u.id === 'usr_both')).toEqual([seed.users![1], seed.users![0]]);
      const lone = users.find((u) => u.email === 'lone@example.com');
      expect(lone).toMatchObject({ org_id: null, role: null, name: 'Lone Tools Ltd', password_hash: 'scrypt$lone', created_at: at });
      expect(lone!.id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
      expect(users).toHaveLength(3);
      // The developer who was also an operator is that person, with the console's password (the CLI's one dropped).
      expect(await rows(db, 'developers')).toEqual([
        { id: 'dev_both', user_id: 'usr_both', name: 'Both Tools', created_at: at },
        { id: 'dev_lone', user_id: lone!.id, name: 'Lone Tools Ltd', created_at: at },
      ]);

      if (dialect === 'sqlite') {
        expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(1);
        // The children still point at the rebuilt parents by name (no rename rewrote them to a *_new or *_old).
        const parents = async (table: string) => (await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${table})`.execute(db)).rows.map((r) => r.table).sort();
        expect(await parents('sessions')).toEqual(['orgs', 'users']);
        expect(await parents('password_resets')).toEqual(['users']);
        expect(await parents('apps')).toEqual(['developers']);
        expect(await parents('tools')).toEqual(['developers']);
        expect(await parents('developers')).toEqual(['users']);
        const leftovers = await sql<{ name: string }>`select name from sqlite_master where name like '%\_new' escape '\\' or name like '%\_old' escape '\\'`.execute(db);
        expect(leftovers.rows).toEqual([]);
      }
      // The cascades work as before: deleting a person deletes their sessions; a developer's person cannot be deleted under it.
      await db.deleteFrom('users').where('id', '=', 'usr_owner').execute();
      expect((await rows(db, 'sessions')).map((s) => s.id)).toEqual(['ses_2']);
      await expect(db.deleteFrom('users').where('id', '=', 'usr_both').execute()).rejects.toThrow(/foreign key/i);
    } finally {
      await dispose();
    }
  });
});

describe.each(testDialects())('20261126T1100_app_secret_rotation on %s', (dialect) => {
  it('keeps every app as it was, with no previous secret and no last token time', async () => {
    const { database, schema, dispose } = await emptyDatabase(dialect);
    const db = database.db as Kysely<any>;
    try {
      await migrateUpTo(db, '20261126T1000_people_and_developers', schema);
      const at = '2026-11-20T10:00:00.000Z';
      await db.insertInto('users').values({ id: 'usr_1', org_id: null, email: 'ada@example.com', name: 'Ada', password_hash: 'scrypt$x', created_at: at, role: null }).execute();
      await db.insertInto('developers').values({ id: 'dev_1', user_id: 'usr_1', name: 'Ada Tools', created_at: at }).execute();
      const app = { id: 'app_1', developer_id: 'dev_1', name: 'CI', client_secret_hash: 's1', scopes: 'tools:read', created_at: at, secret_rotated_at: at, disabled_at: null };
      await db.insertInto('apps').values(app).execute();

      expect((await migrateToLatest(db)).applied).toContain('20261126T1100_app_secret_rotation');
      expect(await db.selectFrom('apps').selectAll().execute()).toEqual([{ ...app, previous_secret_hash: null, previous_secret_expires_at: null, last_token_at: null }]);
    } finally {
      await dispose();
    }
  });
});

describe.each(testDialects())('20261126T2300_chat_widget on %s', (dialect) => {
  it('gives every existing agent its own chat id with the chat off, and existing conversations no page', async () => {
    const { database, schema, dispose } = await emptyDatabase(dialect);
    const db = database.db as Kysely<any>;
    try {
      await migrateUpTo(db, '20261126T1800_webhooks', schema);
      const at = '2026-11-26T10:00:00.000Z';
      await db.insertInto('orgs').values({ id: 'org_1', name: 'Acme', default_country: 'US', created_at: at }).execute();
      const brand = { org_id: 'org_1', brand_name: 'Acme', primary_color: '#123456', background_color: '#ffffff', text_color: '#000000', font_family: null, logo_url: null, created_at: at, updated_at: at };
      await db.insertInto('agents').values([{ id: 'agt_1', name: 'One', ...brand }, { id: 'agt_2', name: 'Two', ...brand }]).execute();
      await db.insertInto('conversations').values({ id: 'conv_1', org_id: 'org_1', agent_id: 'agt_1', source: 'api', created_at: at, updated_at: at }).execute();

      expect((await migrateToLatest(db)).applied).toContain('20261126T2300_chat_widget');
      const agents = await db.selectFrom('agents').select(['id', 'chat_id', 'chat_enabled', 'chat_allowed_origins', 'chat_welcome_message', 'chat_lead_form_id', 'chat_daily_token_budget']).orderBy('id').execute();
      expect(agents).toEqual(['agt_1', 'agt_2'].map((id) => ({
        id, chat_id: expect.stringMatching(/^chat_[0-9A-Za-z]{20}$/), chat_enabled: 0, chat_allowed_origins: '[]', chat_welcome_message: '', chat_lead_form_id: null, chat_daily_token_budget: null,
      })));
      expect(agents[0]!.chat_id).not.toBe(agents[1]!.chat_id);
      await expect(db.updateTable('agents').set({ chat_id: agents[0]!.chat_id }).where('id', '=', 'agt_2').execute()).rejects.toThrow(/unique/i);
      expect(await db.selectFrom('conversations').select(['id', 'page_url', 'utm']).execute()).toEqual([{ id: 'conv_1', page_url: null, utm: null }]);
    } finally {
      await dispose();
    }
  });
});

describe('a migration that would leave a row pointing nowhere (SQLite: foreign keys off while migrating)', () => {
  it('fails, naming the broken reference, and rolls back entirely', async () => {
    const { database, dispose } = await emptyDatabase('sqlite');
    const db = database.db as Kysely<any>;
    try {
      await migrateToLatest(db);
      const dangling: Migration = {
        up: async (trx) => {
          await trx.insertInto('orgs').values({ id: 'org_kept_out', name: 'Written, then rolled back', default_country: 'US', created_at: '2026-11-26T10:00:00.000Z' }).execute();
          await trx.insertInto('password_resets').values({ token_hash: 'r', user_id: 'usr_nobody', created_at: 'x', expires_at: 'y', used_at: null }).execute();
        },
      };
      await expect(migrateToLatest(db, { ...migrations, '99991231T0000_dangling': dangling })).rejects.toThrow(
        'Migration 99991231T0000_dangling failed: 1 row(s) would point nowhere: password_resets → users',
      );
      expect(await db.selectFrom('orgs').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('password_resets').selectAll().execute()).toEqual([]);
      expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(1);
    } finally {
      await dispose();
    }
  });
});
