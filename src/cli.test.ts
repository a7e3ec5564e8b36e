import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './db/database.js';
import { hashSecret, verifyPassword } from './lib/hashing.js';
import { runCli as cli, runCliProcess, runCliWith } from '../test/support/cli.js';

describe('switchboard CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const passwordHashOf = async (email: string) => {
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    try {
      return (await database.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow()).password_hash;
    } finally {
      await database.close();
    }
  };

  it('migrates a fresh database and says which migrations it applied', async () => {
    const first = await cli(dataDir, 'migrate', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
    const again = await cli(dataDir, 'migrate', '--json');
    expect(JSON.parse(again.stdout)).toEqual({ applied: [] });
  });

  it('creates a developer and an app, printing the client secret once as JSON', async () => {
    const developer = await cli(dataDir, 'developer', 'create', '--email', 'Ada@Example.com', '--password', 'a long password', '--name', 'Ada', '--json');
    expect(developer.code).toBe(0);
    expect(JSON.parse(developer.stdout).developer).toMatchObject({ email: 'ada@example.com', name: 'Ada', id: expect.stringMatching(/^dev_/) });

    const app = await cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'Orders', '--scopes', 'tools:read tools:publish', '--json');
    expect(app.code).toBe(0);
    const created = JSON.parse(app.stdout);
    expect(created).toMatchObject({ clientId: expect.stringMatching(/^app_/), clientSecret: expect.stringMatching(/^svc_cs_/), scopes: 'tools:read tools:publish' });

    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    const row = await database.db.selectFrom('apps').selectAll().where('id', '=', created.clientId).executeTakeFirstOrThrow();
    await database.close();
    expect(JSON.stringify(row)).not.toContain(created.clientSecret);
  });

  it('reads a password from standard input or SWITCHBOARD_PASSWORD instead of the command line', async () => {
    // A real process (src/cli.ts) with a real pipe, as an operator runs it; the other runs are in this process.
    const piped = runCliProcess(dataDir, { input: 'piped password 1\n' }, 'developer', 'create', '--email', 'pipe@example.com', '--name', 'Pipe', '--password-stdin');
    expect(piped.code, piped.stderr).toBe(0);
    expect(await verifyPassword('piped password 1', await passwordHashOf('pipe@example.com'))).toBe(true);

    const fromEnv = await runCliWith(dataDir, { env: { SWITCHBOARD_PASSWORD: 'env password 12' } }, 'developer', 'create', '--email', 'env@example.com', '--name', 'Env');
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(await verifyPassword('env password 12', await passwordHashOf('env@example.com'))).toBe(true);

    const both = await runCliWith(dataDir, { input: 'piped password 1\n' }, 'developer', 'create', '--email', 'both@example.com', '--name', 'B', '--password', 'x'.repeat(12), '--password-stdin');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    const empty = await runCliWith(dataDir, { input: '' }, 'developer', 'create', '--email', 'empty@example.com', '--name', 'E', '--password-stdin');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('read no password');
    const none = await cli(dataDir, 'developer', 'create', '--email', 'none@example.com', '--name', 'N');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('missing --password (or --password-stdin, or SWITCHBOARD_PASSWORD)');
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const duplicate = await cli(dataDir, 'developer', 'create', '--email', 'ada@example.com', '--password', 'a long password', '--name', 'Ada');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');

    const unknown = await cli(dataDir, 'app', 'create', '--developer', 'nobody@example.com', '--name', 'X');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No developer has the email nobody@example.com');

    const badScope = await cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'X', '--scopes', 'admin');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('Scopes must be among');

    const missing = await cli(dataDir, 'app', 'create', '--name', 'X');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --developer');
    expect(missing.stderr).toContain('switchboard app create --developer <email>');

    const typo = await cli(dataDir, 'develper', 'create');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command "develper create"');
    expect(typo.stdout).toBe('');
  });

  it('developer create: an operator\'s email is refused unless their own password is given; then they are linked, one password kept', async () => {
    const org = await cli(dataDir, 'org', 'create', '--name', 'Ops Co', '--email', 'ops@example.com', '--password', 'operator password 1', '--json');
    expect(org.code, org.stderr).toBe(0);
    const consoleHash = await passwordHashOf('ops@example.com');

    const refused = await cli(dataDir, 'developer', 'create', '--email', 'Ops@Example.com', '--name', 'Ops Tools', '--password', 'another password 2', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toEqual({
      success: false, code: 'CONFLICT', field: 'email',
      error: 'ops@example.com already has a console account. Sign in to the console with it and become a developer there (Developer), or run this command with that account\'s password to link it.',
    });

    const linked = await cli(dataDir, 'developer', 'create', '--email', 'ops@example.com', '--name', 'Ops Tools', '--password', 'operator password 1', '--json');
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(linked.stdout).developer).toMatchObject({ id: expect.stringMatching(/^dev_/), email: 'ops@example.com', name: 'Ops Tools' });
    expect(await passwordHashOf('ops@example.com')).toBe(consoleHash);
    expect((await cli(dataDir, 'app', 'create', '--developer', 'ops@example.com', '--name', 'Ops app')).code).toBe(0);
  });

  it('with --json, answers a refusal as one JSON line on stderr', async () => {
    const duplicate = await cli(dataDir, 'developer', 'create', '--email', 'ada@example.com', '--password', 'a long password', '--name', 'Ada', '--json');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stdout).toBe('');
    expect(JSON.parse(duplicate.stderr)).toEqual({ success: false, error: expect.stringContaining('already exists'), code: 'CONFLICT', field: 'email' });

    const missing = await cli(dataDir, 'app', 'create', '--name', 'X', '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toEqual({ success: false, error: 'missing --developer.', code: 'USAGE_ERROR', usage: expect.stringMatching(/^switchboard app create --developer <email> --name <name>/) });

    const badOption = await cli(dataDir, 'org', 'create', '--nmae', 'X', '--json');
    expect(badOption.code).toBe(2);
    expect(JSON.parse(badOption.stderr)).toMatchObject({ success: false, code: 'USAGE_ERROR', error: expect.stringContaining('--nmae') });

    const unknown = await cli(dataDir, 'frobnicate', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toEqual({ success: false, error: 'unknown command "frobnicate".', code: 'USAGE_ERROR' });
  });

  // Each CLI run is a process of its own (a second or two): more of them than one test's 30 s allow under load.
  it('org limits shows each limit with its use and default, and raises one; a create past a limit names the command', async () => {
    const created = await cli(dataDir, 'org', 'create', '--name', 'Limits Co', '--email', 'limits@example.com', '--password', 'a long password', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { orgId } = JSON.parse(created.stdout);
    const shown = await cli(dataDir, 'org', 'limits', orgId, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ orgId, limits: { apiKeys: { limit: 50, used: 1, default: 50 }, forms: { limit: 100, used: 0, default: 100 }, pipelines: { used: 1 } } });

    expect((await cli(dataDir, 'org', 'limits', orgId, '--api-keys', '1')).code).toBe(0);
    const refused = await cli(dataDir, 'api-key', 'create', '--org', orgId, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toEqual({
      success: false, code: 'LIMIT_REACHED',
      error: `This organization has 1 active API key, the most it may have. Revoke or delete a key you no longer use, or ask your Switchboard operator to raise the limit (switchboard org limits ${orgId} --api-keys <n>).`,
    });
    const raised = await cli(dataDir, 'org', 'limits', orgId, '--api-keys', '2', '--forms', 'default', '--json');
    expect(JSON.parse(raised.stdout).limits.apiKeys).toEqual({ limit: 2, used: 1, default: 50 });
    expect((await cli(dataDir, 'api-key', 'create', '--org', orgId)).code).toBe(0);

    const notANumber = await cli(dataDir, 'org', 'limits', orgId, '--forms', 'lots');
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toContain('--forms takes a whole number or "default", not "lots".');
    const missing = await cli(dataDir, 'org', 'limits', '--forms', '3');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing <org id>');
    const unknown = await cli(dataDir, 'org', 'limits', 'org_missing', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: 'ORG_NOT_FOUND' });
  }, 90_000);

  it('developer limits, by email or id, shows and sets a developer\'s; app create past the limit is refused', async () => {
    const lowered = await cli(dataDir, 'developer', 'limits', 'Ada@Example.com', '--apps', '1', '--json');
    expect(lowered.code, lowered.stderr).toBe(0);
    const shown = JSON.parse(lowered.stdout);
    expect(shown).toMatchObject({ developerId: expect.stringMatching(/^dev_/), email: 'ada@example.com', limits: { apps: { limit: 1, used: 1, default: 25 }, tools: { limit: 100, used: 0, default: 100 } } });
    const refused = await cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'One too many', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'LIMIT_REACHED', error: expect.stringContaining(`(switchboard developer limits ${shown.developerId} --apps <n>)`) });
    expect((await cli(dataDir, 'developer', 'limits', shown.developerId, '--apps', 'default')).code).toBe(0);
    expect((await cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'Now there is room')).code).toBe(0);
    const unknown = await cli(dataDir, 'developer', 'limits', 'nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No developer has the email nobody@example.com');
  }, 60_000);
});

describe('switchboard with REDIS_URL set', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-redis-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // A command's writes change nothing a node's cache holds, so it never waits on Redis (services.ts `redis: false`):
  // a listener on REDIS_URL's port, standing in for Redis, sees no connection while services are built, used and closed.
  it('opens no connection to Redis, even for commands that build every service', async () => {
    let connections = 0;
    const redis = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    redis.listen(0, '127.0.0.1');
    await once(redis, 'listening');
    try {
      const { port } = redis.address() as AddressInfo;
      const run = await runCliWith(dataDir, { env: { SWITCHBOARD_PASSWORD: 'a long password', REDIS_URL: `redis://127.0.0.1:${port}` } }, 'developer', 'create', '--email', 'redis@example.com', '--name', 'Redis', '--json');
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).developer).toMatchObject({ email: 'redis@example.com' });
      expect(connections).toBe(0);
    } finally {
      redis.close();
    }
  });
});

describe('switchboard user reset-password and demo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-accounts-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const userRow = async (email: string) => {
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    try {
      const user = await database.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      const live = await database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).where('revoked_at', 'is', null).execute();
      const counts = async (table: 'forms' | 'submissions' | 'contacts' | 'opportunities' | 'agents' | 'custom_fields') =>
        Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', user.org_id).executeTakeFirstOrThrow()).n);
      return { user, liveSessions: live.length, forms: await counts('forms'), submissions: await counts('submissions'), contacts: await counts('contacts'), opportunities: await counts('opportunities'), agents: await counts('agents'), customFields: await counts('custom_fields') };
    } finally {
      await database.close();
    }
  };

  it('seeds a demo organization whose printed credentials work, and another on a second run', async () => {
    // Private endpoints allowed: the demo tool's publication then checks no DNS (a test resolves no public name).
    const demoEnv = { env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' } };
    const first = await runCliWith(dataDir, demoEnv, 'demo', '--json');
    expect(first.code, first.stderr).toBe(0);
    const demo = JSON.parse(first.stdout);
    expect(demo).toMatchObject({ email: 'demo@example.com', signIn: 'http://localhost:3000/app/signin', password: expect.any(String) });
    const seeded = await userRow('demo@example.com');
    expect(seeded).toMatchObject({ forms: 1, submissions: 3, contacts: 3, opportunities: 3, agents: 1, customFields: 1 });
    expect(seeded.user.role).toBe('owner');
    // The demo developer's app gets a Developer API token with the printed credentials.
    expect(demo.developer).toMatchObject({ clientId: expect.stringMatching(/^app_/), clientSecret: expect.stringMatching(/^svc_cs_/) });
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    try {
      const oauthApp = await database.db.selectFrom('apps').selectAll().where('id', '=', demo.developer.clientId).executeTakeFirstOrThrow();
      expect(oauthApp.client_secret_hash).toBe(hashSecret(demo.developer.clientSecret));
      // The developer signs in with the printed password, and their tool is published and enabled for the demo agent.
      const person = await database.db.selectFrom('users').selectAll().where('email', '=', demo.developer.email).executeTakeFirstOrThrow();
      expect(await verifyPassword(demo.developer.password, person.password_hash)).toBe(true);
      const tool = await database.db.selectFrom('tools').selectAll().where('id', '=', demo.developer.toolId).executeTakeFirstOrThrow();
      expect(tool.published_revision_id).not.toBeNull();
      const installation = await database.db.selectFrom('installations').selectAll().where('id', '=', demo.developer.installationId).executeTakeFirstOrThrow();
      expect(installation).toMatchObject({ tool_id: tool.id, org_id: seeded.user.org_id });
    } finally {
      await database.close();
    }
    expect(await verifyPassword(demo.password, seeded.user.password_hash)).toBe(true);
    const second = JSON.parse((await runCliWith(dataDir, demoEnv, 'demo', '--json')).stdout);
    expect(second.note).toContain('already exists');
    expect(second.email).toMatch(/^demo-\w+@example\.com$/);
  });

  it('resets a password: a generated one is printed, a given one is checked, sessions end', async () => {
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    const { user } = await userRow('demo@example.com');
    await database.db.insertInto('sessions').values({ id: 'ses_cli', token_hash: 'x', user_id: user.id, org_id: user.org_id, csrf_secret: 'y', created_at: new Date().toISOString(), last_seen_at: new Date().toISOString(), expires_at: new Date(Date.now() + 86_400_000).toISOString(), revoked_at: null }).execute();
    await database.close();
    const generated = await cli(dataDir, 'user', 'reset-password', '--email', 'Demo@Example.com', '--json');
    expect(generated.code, generated.stderr).toBe(0);
    const out = JSON.parse(generated.stdout);
    const after = await userRow('demo@example.com');
    expect(await verifyPassword(out.password, after.user.password_hash)).toBe(true);
    expect(after.liveSessions).toBe(0);

    const given = await runCliWith(dataDir, { input: 'a chosen new password\n' }, 'user', 'reset-password', '--email', 'demo@example.com', '--password-stdin', '--json');
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout)).not.toHaveProperty('password');
    expect(await verifyPassword('a chosen new password', (await userRow('demo@example.com')).user.password_hash)).toBe(true);

    const common = await cli(dataDir, 'user', 'reset-password', '--email', 'demo@example.com', '--password', 'password123');
    expect(common.code).toBe(1);
    expect(common.stderr).toContain('most common');
    const unknown = await cli(dataDir, 'user', 'reset-password', '--email', 'nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No user has the email nobody@example.com');
    const missing = await cli(dataDir, 'user', 'reset-password');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--email');
  });
});

describe('switchboard usage', () => {
  // No command here opens a database: DATA_DIR points nowhere that matters.
  const dataDir = join(tmpdir(), 'switchboard-cli-usage-never-created');

  it('help, --help and -h print every command with its options on stdout and exit 0', async () => {
    for (const args of [['help'], ['--help'], ['-h']]) {
      const run = await cli(dataDir, ...args);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      for (const command of ['migrate', 'serve', 'developer create', 'app create', 'org create', 'api-key create']) expect(run.stdout).toContain(`switchboard ${command}`);
      expect(run.stdout).toContain('--password-stdin');
      expect(run.stdout).toContain('--country <code>');
      expect(run.stdout).toContain('SWITCHBOARD_PASSWORD');
    }
  });

  it('help for one group or one command shows only that', async () => {
    const group = await cli(dataDir, 'help', 'org');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('Usage: switchboard org <command>');
    expect(group.stdout).toContain('--operator-name <name>');
    expect(group.stdout).not.toContain('developer create');

    const command = await cli(dataDir, 'app', 'create', '--help');
    expect(command.code).toBe(0);
    expect(command.stdout).toContain('switchboard app create --developer <email> --name <name> [--scopes <scopes>]');
    expect(command.stdout).not.toContain('org create');

    const described = JSON.parse((await cli(dataDir, 'help', 'org', 'create', '--json')).stdout);
    expect(described.commands).toHaveLength(1);
    expect(described.commands[0]).toMatchObject({ command: 'org create', usage: expect.stringMatching(/^switchboard org create /) });
    expect(described.commands[0].options).toContainEqual({ name: '--password', value: 'password', required: true, description: expect.any(String) });
    expect(described.commands[0].options).toContainEqual({ name: '--country', value: 'code', required: false, description: expect.stringContaining('ISO 3166-1') });

    const nothing = await cli(dataDir, 'help', 'org', 'delete');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('there is no command "org delete"');
  });

  it('a group alone, or nothing at all, is an incomplete command: usage on stderr, exit 2', async () => {
    for (const group of ['org', 'app', 'developer', 'api-key']) {
      const run = await cli(dataDir, group);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`"switchboard ${group}" needs a command`);
      expect(run.stderr).toContain(`switchboard ${group} create --`);
    }
    const bare = await cli(dataDir);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('name a command');
    expect(bare.stderr).toContain('switchboard org create');
    const subcommand = await cli(dataDir, 'org', 'delete', '--json');
    expect(subcommand.code).toBe(2);
    expect(JSON.parse(subcommand.stderr)).toMatchObject({ success: false, code: 'USAGE_ERROR', error: 'unknown command "org delete".' });
  });
});
