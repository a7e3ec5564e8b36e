import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import type { App } from '../http/app-type.js';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { keyIdOf } from '../lib/secrets.js';
import { runCliWith } from '../../test/support/cli.js';
import { TEST_ENV, TestClock } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * `switchboard secrets rotate` as an operator runs it (a real process on the SQLite file
 * in DATA_DIR), between two runs of the app: before, under the old key; after, under the new.
 */
const OLD_KEY = Buffer.alloc(32, 1).toString('base64');
const NEW_KEY = Buffer.alloc(32, 2).toString('base64');
const SECRET = 'rotate-me-hmac-secret';

describe('secrets rotate', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-rotate-'));
  let endpoint: HttpsEndpoint;
  let org: OrgWithKey;
  let agentId: string;
  const clock = new TestClock();

  async function withApp<T>(secretsKey: string, body: (app: App, database: Database) => Promise<T>): Promise<T> {
    const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, SECRETS_KEY: secretsKey, TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: endpoint.caFile });
    const database = openDatabase({ dataDir });
    await migrateToLatest(database.db);
    const app = await buildApp({ config, database, clock, expiryPurge: false, resolveHost: toolHostResolver() });
    try {
      return await body(app, database);
    } finally {
      await app.close();
      await database.close();
    }
  }

  const callTool = (app: App) => orgCaller(app)('POST', `/api/org/agents/${agentId}/tool-calls`, org, { name: 'signed', arguments: { weightKg: 1, country: 'PT' } });

  function signatureVerifies(): boolean {
    const request = endpoint.requests.at(-1)!;
    const timestamp = String(request.headers['x-svc-timestamp']);
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.`).update(request.body).digest('hex')}`;
    return request.headers['x-svc-signature'] === expected;
  }

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { ok: true }));
    await withApp(OLD_KEY, async (app, database) => {
      const dev = await developerSession(database, clock, app);
      org = await createOrgWithKey(database, clock);
      agentId = (await createAgent(app, org)).id;
      const tool = await publishTool(app, dev.auth, (await createTool(app, dev.auth, { name: 'signed', authType: 'hmac', endpoint: `https://tool.test:${endpoint.port}/hook` })).id);
      await install(app, org, { toolId: tool.id, credentials: { secret: SECRET } });
      expect((await callTool(app)).statusCode).toBe(200);
      expect(signatureVerifies()).toBe(true);
    });
  });
  afterAll(async () => {
    await endpoint.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const keyIds = () => {
    const database = openDatabase({ dataDir });
    return database.db.selectFrom('installation_credentials').select('key_id').execute().finally(() => database.close());
  };

  it('refuses to finish without the previous key, naming what it could not read, and changes nothing', async () => {
    const run = await runCliWith(dataDir, { env: { SECRETS_KEY: NEW_KEY } }, 'secrets', 'rotate', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({ success: false, error: expect.stringContaining('set SECRETS_KEY_PREVIOUS') });
    expect(run.stderr).not.toContain(SECRET);
    expect(await keyIds()).toEqual([{ key_id: keyIdOf(Buffer.from(OLD_KEY, 'base64')) }]);
  });

  it('re-encrypts every credential under the new key; calls keep working with the new key alone', async () => {
    const run = await runCliWith(dataDir, { env: { SECRETS_KEY: NEW_KEY, SECRETS_KEY_PREVIOUS: OLD_KEY } }, 'secrets', 'rotate', '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ reencrypted: 1, keyId: keyIdOf(Buffer.from(NEW_KEY, 'base64')) });
    expect(await keyIds()).toEqual([{ key_id: keyIdOf(Buffer.from(NEW_KEY, 'base64')) }]);

    const again = await runCliWith(dataDir, { env: { SECRETS_KEY: NEW_KEY, SECRETS_KEY_PREVIOUS: OLD_KEY } }, 'secrets', 'rotate', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ reencrypted: 0 });

    endpoint.reset();
    await withApp(NEW_KEY, async (app) => {
      expect((await callTool(app)).statusCode).toBe(200);
      expect(signatureVerifies()).toBe(true);
    });
    // The old key alone no longer opens them: the call says so instead of sending a bad signature.
    endpoint.reset();
    await withApp(OLD_KEY, async (app) => {
      const res = await callTool(app);
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('TOOL_CREDENTIALS_MISSING');
      expect(endpoint.requests).toHaveLength(0);
    });
  });
});
