import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, type DeveloperWithApp } from '../../test/support/factories.js';

/** Interop with a real OAuth client library over real HTTP: openid-client's client_credentials grant. */
describe.each(testDialects())('openid-client interop on %s', (dialect) => {
  let t: TestContext;
  let dev: DeveloperWithApp;
  let base: string;

  beforeAll(async () => {
    const served = await createServingTestContext(dialect);
    t = served;
    base = served.url;
    dev = await createDeveloperWithApp(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const useToken = (accessToken: string) => fetch(`${base}/api/dev/tools`, { headers: { authorization: `Bearer ${accessToken}` } });

  for (const [label, auth] of [
    ['client_secret_basic', (secret: string) => client.ClientSecretBasic(secret)],
    ['client_secret_post', (secret: string) => client.ClientSecretPost(secret)],
  ] as const) {
    it(`gets a token with ${label} after discovery and uses it on the tools API`, async () => {
      const config = await client.discovery(new URL(base), dev.app.clientId, undefined, auth(dev.app.clientSecret), {
        algorithm: 'oauth2',
        execute: [client.allowInsecureRequests],
      });
      const tokens = await client.clientCredentialsGrant(config, { scope: 'tools:read tools:write' });
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.scope).toBe('tools:read tools:write');
      const res = await useToken(tokens.access_token);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
    });
  }

  it('surfaces a wrong secret to the library as a 401 Basic challenge with invalid_client', async () => {
    const config = new client.Configuration(
      { issuer: base, token_endpoint: `${base}/api/dev/oauth/token` },
      dev.app.clientId,
      undefined,
      client.ClientSecretBasic('svc_cs_wrong'),
    );
    client.allowInsecureRequests(config);
    const error = await client.clientCredentialsGrant(config).then(
      () => undefined,
      (reason: unknown) => reason as { status?: number; response?: Response; cause?: Array<{ scheme: string }> },
    );
    expect(error?.status).toBe(401);
    expect(error?.cause?.[0]?.scheme).toBe('basic');
    expect(await error?.response?.json()).toMatchObject({ error: 'invalid_client' });
  });
});
