import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { newId } from '../../lib/ids.js';

/**
 * One person, one sign-in (docs/accounts.md): a `users` row is a person. `users.org_id` and
 * `users.role` become nullable (null: a person without an organization, a developer only), and so
 * does `sessions.org_id`. A developer account belongs to a person (`developers.user_id`, unique) and
 * keeps its display `name`; its email and password are the person's, so `developers.email` (with its
 * unique index) and `developers.password_hash` go.
 *
 * Each CLI-made developer becomes, or joins, a person:
 *   - no user has its email: a person without an organization, with the developer's name and password hash
 *     (they sign in as before);
 *   - an operator has its email: linked to that person, whose password (the console's) is kept; the
 *     developer's own password is dropped, so no email has two passwords.
 *
 * SQLite cannot relax NOT NULL in place: `users`, `sessions` and `developers` are rebuilt (create the
 * new table, copy, drop the old, rename). That is safe only with foreign keys off — with them on, the
 * DROP runs an implicit DELETE that cascades to sessions, resets, apps, tools…, and the RENAME rewrites
 * the children's references — and PRAGMA foreign_keys cannot change inside a transaction: migrate.ts
 * turns them off around the run on SQLite, runs each migration in a transaction of its own, and checks
 * `PRAGMA foreign_key_check` before it commits.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  if (postgres) {
    await db.schema.alterTable('users').alterColumn('org_id', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('users').alterColumn('role', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('users').alterColumn('role', (c) => c.dropDefault()).execute();
    await db.schema.alterTable('sessions').alterColumn('org_id', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('developers').addColumn('user_id', 'text', (c) => c.unique().references('users.id')).execute();
  } else {
    await rebuildSqliteTables(db);
  }

  await linkDevelopersToPeople(db);

  if (postgres) {
    await db.schema.alterTable('developers').alterColumn('user_id', (c) => c.setNotNull()).execute();
    await db.schema.alterTable('developers').dropColumn('email').execute();
    await db.schema.alterTable('developers').dropColumn('password_hash').execute();
  } else {
    await finishSqliteDevelopers(db);
  }
}

/** Every developer gets its person: the operator with its email, or a new person without an organization. */
async function linkDevelopersToPeople(db: Kysely<any>): Promise<void> {
  const developers = await db.selectFrom('developers').select(['id', 'email', 'name', 'password_hash', 'created_at']).orderBy('id').execute();
  for (const developer of developers) {
    const person = await db.selectFrom('users').select('id').where('email', '=', developer.email).executeTakeFirst();
    let userId = person?.id as string | undefined;
    if (userId === undefined) {
      userId = newId('usr');
      await db
        .insertInto('users')
        .values({ id: userId, org_id: null, email: developer.email, name: developer.name, password_hash: developer.password_hash, role: null, created_at: developer.created_at })
        .execute();
    }
    await db.updateTable('developers').set({ user_id: userId }).where('id', '=', developer.id).execute();
  }
}

/** The new table of a rebuild, renamed to `table` once filled. */
const rebuilt = (table: string) => `${table}_new`;

/** SQLite's table rebuild (https://sqlite.org/lang_altertable.html#otheralter), foreign keys off (see above). */
async function rebuildSqliteTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable(rebuilt('users'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.references('orgs.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('role', 'text')
    .execute();
  await sql`insert into users_new (id, org_id, email, name, password_hash, created_at, role) select id, org_id, email, name, password_hash, created_at, role from users`.execute(db);
  await db.schema.dropTable('users').execute();
  await sql`alter table users_new rename to users`.execute(db);
  await db.schema.createIndex('users_org_idx').on('users').column('org_id').execute();

  await db.schema
    .createTable(rebuilt('sessions'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.references('orgs.id').onDelete('cascade'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await sql`insert into sessions_new (id, token_hash, user_id, org_id, csrf_secret, created_at, last_seen_at, expires_at, revoked_at)
    select id, token_hash, user_id, org_id, csrf_secret, created_at, last_seen_at, expires_at, revoked_at from sessions`.execute(db);
  await db.schema.dropTable('sessions').execute();
  await sql`alter table sessions_new rename to sessions`.execute(db);
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  // Filled by linkDevelopersToPeople, then the table is rebuilt without email and password_hash.
  await db.schema.alterTable('developers').addColumn('user_id', 'text').execute();
}

async function finishSqliteDevelopers(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable(rebuilt('developers'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into developers_new (id, user_id, name, created_at) select id, user_id, name, created_at from developers`.execute(db);
  await db.schema.dropTable('developers').execute();
  await sql`alter table developers_new rename to developers`.execute(db);
}
