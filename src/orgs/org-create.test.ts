import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { hashSecret, verifyPassword } from '../lib/hashing.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { runCli as cli, runCliWith } from '../../test/support/cli.js';
import { orgsServiceOn } from '../../test/support/org-factories.js';
import { DEFAULT_PIPELINE } from '../crm/default-pipeline.js';

describe('switchboard org create', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-org-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the org id, the operator and an API key once; stores only hashes', async () => {
    const run = await cli(dataDir, 'org', 'create', '--name', 'Acme Inc', '--email', ' Boss@Acme.example ', '--password', 'a long password', '--json');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({
      orgId: expect.stringMatching(/^org_/),
      name: 'Acme Inc',
      defaultCountry: 'US',
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
    const human = await runCliWith(dataDir, { input: 'a long password\n' }, 'org', 'create', '--name', 'Beta', '--email', 'ops@beta.example', '--password-stdin', '--country', 'gb');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/apiKey: svc_org_/);
    expect(human.stdout).toContain('defaultCountry: GB');
  });

  it('creates another API key for an organization whose keys are lost', async () => {
    const created = JSON.parse((await cli(dataDir, 'org', 'create', '--name', 'Keys', '--email', 'ops@keys.example', '--password', 'a long password', '--json')).stdout);
    const run = await cli(dataDir, 'api-key', 'create', '--org', created.orgId, '--name', 'Recovery', '--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ orgId: created.orgId, id: expect.stringMatching(/^key_/), name: 'Recovery', apiKey: expect.stringMatching(/^svc_org_/) });
    expect(out.apiKey).not.toBe(created.apiKey);
    const database = openDatabase({ sqliteFile: join(dataDir, 'switchboard.db') });
    try {
      const key = await database.db.selectFrom('org_api_keys').selectAll().where('id', '=', out.id).executeTakeFirstOrThrow();
      expect(key).toMatchObject({ org_id: created.orgId, key_hash: hashSecret(out.apiKey), revoked_at: null });
    } finally {
      await database.close();
    }
    const unknown = await cli(dataDir, 'api-key', 'create', '--org', 'org_doesnotexist0000000', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ success: false, code: 'ORG_NOT_FOUND' });
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const duplicate = await cli(dataDir, 'org', 'create', '--name', 'Again', '--email', 'boss@acme.example', '--password', 'a long password');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    const common = await cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'x@x.example', '--password', 'password123');
    expect(common.code).toBe(1);
    expect(common.stderr).toContain('most common');
    const weak = await cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'x@x.example', '--password', 'short');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('at least 10 characters');
    const badEmail = await cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'not-an-email', '--password', 'a long password');
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain('valid email');
    const missing = await cli(dataDir, 'org', 'create', '--name', 'X');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --email');
    const uk = await cli(dataDir, 'org', 'create', '--name', 'X', '--email', 'x@uk.example', '--password', 'a long password', '--country', 'UK', '--json');
    expect(uk.code).toBe(1);
    expect(JSON.parse(uk.stderr)).toEqual({ success: false, code: 'VALIDATION_ERROR', field: 'defaultCountry', error: 'UK is not an ISO 3166-1 country code: use GB for the United Kingdom.' });
  });
});

describe.each(testDialects())('organization creation on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx.close());

  it('gives a new org the default pipeline with ordered stages, and a working key', async () => {
    const orgs = orgsServiceOn(ctx.database, ctx.clock);
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
    const orgs = orgsServiceOn(ctx.database, ctx.clock);
    const [fr, us] = await Promise.all([
      orgs.createOrganization({ name: 'Delta', email: 'ops@delta.example', password: 'a long password', defaultCountry: 'FR' }),
      orgs.createOrganization({ name: 'Epsilon', email: 'ops@epsilon.example', password: 'a long password' }),
    ]);
    expect(await orgs.defaultCountry(fr.org.id)).toBe('FR');
    expect(await orgs.defaultCountry(us.org.id)).toBe('US');
  });

  it.each([
    ['UK', /use GB for the United Kingdom/],
    ['el', /use GR for Greece/],
    ['QQ', /QQ is not a country code we can read phone numbers for/],
    ['XX', /XX is not a country code/],
    ['France', /two-letter ISO 3166-1 code/],
    ['', /two-letter ISO 3166-1 code/],
  ])('refuses the default country %j and creates nothing', async (country, message) => {
    const orgs = orgsServiceOn(ctx.database, ctx.clock);
    const count = async () => Number((await ctx.database.db.selectFrom('orgs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const email = `ops-${country.toLowerCase() || 'blank'}@country.example`;
    await expect(orgs.createOrganization({ name: 'Country', email, password: 'a long password', defaultCountry: country })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'defaultCountry', message: expect.stringMatching(message) });
    expect(await count()).toBe(before);
    expect(await ctx.database.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();
  });

  it('accepts any region the phone library knows, in any case, stored in capitals', async () => {
    const orgs = orgsServiceOn(ctx.database, ctx.clock);
    for (const [given, stored] of [['gb', 'GB'], [' De ', 'DE'], ['XK', 'XK']] as const) {
      const created = await orgs.createOrganization({ name: `In ${stored}`, email: `ops-${stored.toLowerCase()}@regions.example`, password: 'a long password', defaultCountry: given });
      expect(created.org.defaultCountry).toBe(stored);
    }
  });
});
