import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db/database.js';
import { runCli as cli } from '../test/support/cli.js';

describe('switchboard CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));

  it('creates a developer and an app, printing the client secret once as JSON', async () => {
    const developer = cli(dataDir, 'developer', 'create', '--email', 'Ada@Example.com', '--password', 'a long password', '--name', 'Ada', '--json');
    expect(developer.code).toBe(0);
    expect(JSON.parse(developer.stdout).developer).toMatchObject({ email: 'ada@example.com', name: 'Ada', id: expect.stringMatching(/^dev_/) });

    const app = cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'Orders', '--scopes', 'tools:read tools:publish', '--json');
    expect(app.code).toBe(0);
    const created = JSON.parse(app.stdout);
    expect(created).toMatchObject({ clientId: expect.stringMatching(/^app_/), clientSecret: expect.stringMatching(/^svc_cs_/), scopes: 'tools:read tools:publish' });

    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    const row = await database.db.selectFrom('apps').selectAll().where('id', '=', created.clientId).executeTakeFirstOrThrow();
    await database.close();
    expect(JSON.stringify(row)).not.toContain(created.clientSecret);
  });

  it('exits non-zero with a clear message on bad input', () => {
    const duplicate = cli(dataDir, 'developer', 'create', '--email', 'ada@example.com', '--password', 'a long password', '--name', 'Ada');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');

    const unknown = cli(dataDir, 'app', 'create', '--developer', 'nobody@example.com', '--name', 'X');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No developer has the email nobody@example.com');

    const badScope = cli(dataDir, 'app', 'create', '--developer', 'ada@example.com', '--name', 'X', '--scopes', 'admin');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('Scopes must be among');

    const missing = cli(dataDir, 'app', 'create', '--name', 'X');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --developer');

    const typo = cli(dataDir, 'develper', 'create');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command');
  });
});
