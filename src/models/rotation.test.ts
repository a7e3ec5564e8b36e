import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { keyIdOf } from '../lib/secrets.js';
import { createServices, type Services } from '../services.js';
import { createTestContext, TEST_ENV, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { fixedResolver } from '../../test/support/tools-factories.js';

/**
 * `switchboard secrets rotate` re-seals model provider keys with the tool credentials: the command's own
 * services (services.ts `credentialRotation`, what cli.ts runs) over the database the app wrote under the old key.
 */
const OLD_KEY = Buffer.alloc(32, 3).toString('base64');
const NEW_KEY = Buffer.alloc(32, 4).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 5).toString('base64');
const API_KEY = 'sk-rotate-me-51c2';

describe.each(testDialects())('secrets rotate and model provider keys on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let providerId: string;
  const opened: Services[] = [];

  /** The services a CLI command builds, under these keys, over the test's database. */
  async function commandServices(env: Record<string, string>): Promise<Services> {
    const services = await createServices(loadConfig({ ...TEST_ENV, DATA_DIR: t.config.dataDir, ...env }), { database: t.database, log: pino({ level: 'silent' }), redis: false, mailer: null });
    opened.push(services);
    return services;
  }
  const keyIds = async () => (await t.database.db.selectFrom('model_providers').select(['id', 'api_key_key_id']).where('org_id', '=', org.orgId).orderBy('id').execute()).map((row) => row.api_key_key_id);

  beforeAll(async () => {
    t = await createTestContext(dialect, { env: { SECRETS_KEY: OLD_KEY }, deps: { resolveHost: fixedResolver() } });
    org = await createOrgWithKey(t.database, t.clock);
    const res = await orgCaller(t.app)('POST', '/api/org/model-providers', org, { name: 'OpenAI', kind: 'openai', apiKey: API_KEY });
    providerId = res.json().data.id;
    // One without a key: nothing to re-seal.
    await orgCaller(t.app)('POST', '/api/org/model-providers', org, { name: 'Keyless', kind: 'anthropic' });
  });
  afterAll(async () => {
    for (const services of opened) await services.close();
    await t.close();
  });

  it('names the provider it cannot open (never the key) and changes nothing', async () => {
    const result = await (await commandServices({ SECRETS_KEY: OTHER_KEY })).credentialRotation.rotate();
    expect(result.reencrypted).toBe(0);
    expect(result.failed).toEqual([{ id: providerId, field: 'apiKey', reason: expect.any(String) }]);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(await keyIds()).toContain(keyIdOf(Buffer.from(OLD_KEY, 'base64')));
  });

  it('re-seals the key under the new key; the new key alone opens it; a second run has nothing to do', async () => {
    const rotating = await commandServices({ SECRETS_KEY: NEW_KEY, SECRETS_KEY_PREVIOUS: OLD_KEY });
    const result = await rotating.credentialRotation.rotate();
    expect(result).toEqual({ reencrypted: 1, keyId: keyIdOf(Buffer.from(NEW_KEY, 'base64')), failed: [] });
    expect((await keyIds()).filter((id) => id !== null)).toEqual([keyIdOf(Buffer.from(NEW_KEY, 'base64'))]);
    expect((await rotating.credentialRotation.rotate()).reencrypted).toBe(0);

    const after = await commandServices({ SECRETS_KEY: NEW_KEY });
    expect((await after.models.connection(org.orgId, providerId)).apiKey).toBe(API_KEY);
    const before = await commandServices({ SECRETS_KEY: OLD_KEY });
    await expect(before.models.connection(org.orgId, providerId)).rejects.toThrow();
  });
});
