import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { createTool } from '../../test/support/tools-factories.js';
import { keyRing } from '../lib/secrets.js';
import { createToolsRepo } from '../tools/repo.js';
import { openClientSecret, rotateClientSecrets, sealClientSecret } from '../tools/client-secret.js';
import { createConnectionsRepo } from './repo.js';
import { openToken, rotateConnectionTokens, sealToken } from './sealing.js';

/**
 * `switchboard secrets rotate` re-seals oauth2 tools' client secrets and connections' tokens under the new
 * SECRETS_KEY, opening them with SECRETS_KEY_PREVIOUS; a value no key opens is named, never shown.
 */
describe.each(testDialects())('re-sealing OAuth secrets on %s', (dialect) => {
  let t: TestContext;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const before = keyRing(oldKey);
  const after = keyRing(newKey, oldKey);

  beforeAll(async () => {
    t = await createTestContext(dialect);
  });
  afterAll(() => t?.close());

  it('re-seals client secrets and access and refresh tokens, leaves values already under the new key, and names what no key opens', async () => {
    const dev = await developerSession(t.database, t.clock, t.app);
    const tools = createToolsRepo(t.database.db);
    const connections = createConnectionsRepo(t.database.db);
    const tool = await createTool(t.app, dev.auth, { authType: 'none' });
    await tools.updateTool(dev.developer.id, tool.id, sealClientSecret(before, tool.id, 'client-secret-1'));

    const now = t.clock.now().toISOString();
    const row = (id: string, keys: typeof before) => ({
      id, tool_id: tool.id, org_id: null, installation_id: null, developer_id: `dev_${id}`, status: 'connected', client_id: 'c',
      access_token: sealToken(keys, id, 'access_token', `at-${id}`), refresh_token: sealToken(keys, id, 'refresh_token', `rt-${id}`), key_id: keys.current.id,
      token_version: 1, expires_at: null, scopes: '', account_label: null, connected_at: now, refreshed_at: null, refresh_failures: 0,
      retry_refresh_at: null, lease_owner: null, lease_until: null, failure_reason: null,
    });
    const stranger = keyRing(randomBytes(32));
    for (const [id, keys] of [['oac_old', before], ['oac_new', after], ['oac_lost', stranger]] as const) {
      await connections.replace({ kind: 'developer', developerId: `dev_${id}`, toolId: tool.id }, row(id, keys));
    }

    const secrets = await rotateClientSecrets(tools, after);
    const tokens = await rotateConnectionTokens(connections, after);
    expect(secrets).toEqual({ reencrypted: 1, failed: [] });
    expect(tokens.reencrypted).toBe(1);
    expect(tokens.failed).toEqual([{ id: 'oac_lost', reason: expect.any(String) }]);
    expect(JSON.stringify(tokens)).not.toContain('at-oac_lost');

    const onlyNew = keyRing(newKey);
    const stored = await t.database.db.selectFrom('tools').select(['oauth_client_secret', 'oauth_secret_key_id']).where('id', '=', tool.id).executeTakeFirstOrThrow();
    expect(stored.oauth_secret_key_id).toBe(onlyNew.current.id);
    expect(openClientSecret(onlyNew, tool.id, stored.oauth_client_secret!)).toBe('client-secret-1');
    const moved = await t.database.db.selectFrom('oauth_connections').selectAll().where('id', '=', 'oac_old').executeTakeFirstOrThrow();
    expect(moved.key_id).toBe(onlyNew.current.id);
    expect(openToken(onlyNew, moved, 'access_token', moved.access_token)).toBe('at-oac_old');
    expect(openToken(onlyNew, moved, 'refresh_token', moved.refresh_token!)).toBe('rt-oac_old');
    // A token sealed for one connection does not open as another's.
    expect(() => openToken(onlyNew, { id: 'oac_new' }, 'access_token', moved.access_token)).toThrow();
  });
});
