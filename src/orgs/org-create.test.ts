import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { hashSecret, verifyPassword } from '../lib/hashing.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { runCli as cli } from '../../test/support/cli.js';
import { DEFAULT_PIPELINE } from '../crm/default-pipeline.js';
import { createStandaloneOrgsService } from '../app.js';

describe('switchboard org create', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-org-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the org id, the operator and an API key once; stores only hashes', async () => {
    const run = cli(dataDir, 'org', 'create', '--name', 'Acme Inc', '--email', ' Boss@Acme.example ', '--password', 'a long password', '--json');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({
      orgId: expect.stringMatching(/^org_/),
      name: 'Acme Inc',
      operator: { id: expect.stringMatching(/^usr_/), email: 'boss@acme.example' },
      apiKey: expect.stringMatching(/^svc_org_/),
    });
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    try {
      const user = await database.db.selectFrom('users').selectAll().where('id', '=', out.operator.id).executeTakeFirstOrThrow();
      expect(user.password_hash).not.toContain('a long password');
      expect(await verifyPassword('a long password', user.password_hash)).toBe(true);
      const key = await database.db.selectFrom('org_api_keys').selectAll().where('org_id', '=', out.orgId).executeTakeFirstOrThrow();
      expect(key.key_hash).toBe(hashSecret(out.apiKey));
      const pipelines = await database.db.selectFrom('pipelines').selectAll().where('org_id', '=', out.orgId).execute();
      expect(pipelines).toHaveLength(1);
    } finally {
      await database.close();
    }
    const human = cli(dataDir, 'org', 'create', '--name', 'Beta', '--email', 'ops@beta.example', '--password', 'a long password');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/apiKey: svc_org_/);
  });

  it('exits non-zero with a clear message on bad input', () => {
    const duplicate = cli(dataDir, 'org', 'create', '--name', 'Again', '--email', 'boss@acme.example', '--password', 'a long password');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    const weak = cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'x@x.example', '--password', 'short');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('at least 10 characters');
    const badEmail = cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'not-an-email', '--password', 'a long password');
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain('valid email');
    const missing = cli(dataDir, 'org', 'create', '--name', 'X');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --email');
  });
});

describe.each(testDialects())('organization creation on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx.close());

  it('gives a new org the default pipeline with ordered stages, and a working key', async () => {
    const orgs = createStandaloneOrgsService(ctx.database.db, ctx.clock);
    const created = await orgs.createOrganization({ name: 'Gamma', email: 'ops@gamma.example', password: 'a long password', defaultCountry: 'fr' });
    expect(created.org).toMatchObject({ name: 'Gamma', defaultCountry: 'FR' });
    const res = await ctx.app.inject({ method: 'GET', url: '/api/org/pipelines', headers: { authorization: `Bearer ${created.apiKey.key}` } });
    expect(res.statusCode).toBe(200);
    const [pipeline] = res.json().data.items;
    expect(pipeline).toMatchObject({ name: DEFAULT_PIPELINE.name, isDefault: true });
    expect(pipeline.stages.map((s: { name: string; position: number }) => [s.name, s.position])).toEqual(DEFAULT_PIPELINE.stages.map((name, i) => [name, i]));
    await expect(orgs.createOrganization({ name: 'Dup', email: 'OPS@gamma.example', password: 'a long password' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(orgs.createOrganization({ name: 'Bad', email: 'x@gamma2.example', password: 'a long password', defaultCountry: 'France' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'defaultCountry' });
  });

  it('answers other features with the default country the org was created with (US when none was given)', async () => {
    const orgs = createStandaloneOrgsService(ctx.database.db, ctx.clock);
    const [fr, us] = await Promise.all([
      orgs.createOrganization({ name: 'Delta', email: 'ops@delta.example', password: 'a long password', defaultCountry: 'FR' }),
      orgs.createOrganization({ name: 'Epsilon', email: 'ops@epsilon.example', password: 'a long password' }),
    ]);
    expect(await orgs.defaultCountry(fr.org.id)).toBe('FR');
    expect(await orgs.defaultCountry(us.org.id)).toBe('US');
  });
});
