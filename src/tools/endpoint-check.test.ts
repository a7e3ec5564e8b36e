import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { fixedResolver, TEST_DNS } from '../../test/support/tools-factories.js';
import { ENDPOINT_CHECKS } from './routes.js';

const PASSWORD = 'correct horse battery';
const URL_PATH = '/api/dev/tools/endpoint-check';

interface Session { cookie: string; csrfToken: string }

/**
 * `POST /api/dev/tools/endpoint-check` (issue 20): the portal's check of an endpoint as it is typed.
 * DNS comes from a fixed table (the app's injected resolveHost); every lookup is counted, so the
 * tests also show that the route resolves once and never connects.
 */
describe.each(testDialects())('POST /api/dev/tools/endpoint-check on %s', (dialect) => {
  let t: TestContext;
  let local: TestContext;
  let ada: DeveloperWithApp;
  let adaSession: Session;
  let localSession: Session;
  let operatorSession: Session;
  const lookups: string[] = [];

  async function signIn(context: TestContext, email: string): Promise<Session> {
    const res = await context.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: PASSWORD } });
    if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: (res.json() as { data: { csrfToken: string } }).data.csrfToken };
  }
  const as = (session: Session, csrf = true) => ({ cookie: session.cookie, ...(csrf ? { 'x-csrf-token': session.csrfToken } : {}) });
  const check = (endpoint: unknown, headers: Record<string, string> = as(adaSession), context = t) =>
    context.app.inject({ method: 'POST', url: URL_PATH, headers, payload: { endpoint } as Record<string, unknown> });
  const verdict = async (endpoint: string, session = adaSession, context = t) => {
    const res = await check(endpoint, as(session), context);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, unknown>;
  };

  /** Status, code and message of a refusal, and that nothing was written. */
  async function refused(send: () => Promise<LightMyRequestResponse>) {
    const before = await databaseSnapshot(t.database);
    const res = await send();
    const body = res.json() as { success: boolean; code: string; error: string };
    expect(body.success).toBe(false);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    return { status: res.statusCode, code: body.code, error: body.error };
  }

  beforeAll(async () => {
    const base = fixedResolver({ ...TEST_DNS, localhost: ['127.0.0.1', '::1'] });
    const counting = (hostname: string) => {
      lookups.push(hostname);
      return base(hostname);
    };
    t = await createTestContext(dialect, { deps: { resolveHost: counting } });
    local = await createTestContext(dialect, { deps: { resolveHost: counting }, env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' } });
    ada = await createDeveloperWithApp(t.database, t.clock);
    adaSession = await signIn(t, ada.developer.email);
    localSession = await signIn(local, (await createDeveloperWithApp(local.database, local.clock)).developer.email);
    operatorSession = await signIn(t, (await createOrgWithKey(t.database, t.clock)).operator.email);
  });
  afterAll(async () => {
    await t?.close();
    await local?.close();
  });

  it('a public endpoint: https, its addresses public, save and publish accept it; one lookup', async () => {
    lookups.length = 0;
    expect(await verdict('https://api.example.com/quote')).toEqual({
      https: true,
      host: 'api.example.com',
      problem: null,
      addresses: [
        { address: '93.184.215.14', public: true },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', public: true },
      ],
      resolution: null,
      save: { accepted: true, message: null },
      publish: { accepted: true, message: null },
      allowedOnlyByPrivateSetting: false,
    });
    expect(lookups).toEqual(['api.example.com']);
  });

  it('an internal answer is named internal with its reason; save and publish refuse it with their own message', async () => {
    const data = await verdict('https://rebind.example.com/x');
    expect(data.addresses).toEqual([
      { address: '93.184.215.14', public: true },
      { address: '127.0.0.1', public: false, reason: 'loopback', reasonText: 'a loopback address' },
    ]);
    const refusal = 'The endpoint resolves to 127.0.0.1, a loopback address. Tool endpoints must resolve only to public internet addresses.';
    expect(data.save).toEqual({ accepted: false, message: refusal });
    expect(data.publish).toEqual({ accepted: false, message: refusal });
    // The same words the create route answers with.
    const created = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: as(adaSession), payload: { name: 'rebind', description: 'x', endpoint: 'https://rebind.example.com/x' } });
    expect([created.statusCode, created.json().error]).toEqual([400, refusal]);

    const mapped = await verdict('https://mapped.example.com/');
    expect(mapped.addresses).toEqual([{ address: '::ffff:192.168.1.20', public: false, reason: 'private', reasonText: 'a private address', embeddedIPv4: '192.168.1.20' }]);
    const literal = await verdict('https://[fe80::1]:8443/');
    expect([literal.host, literal.addresses]).toEqual(['fe80::1', [{ address: 'fe80::1', public: false, reason: 'link_local', reasonText: 'a link-local address' }]]);
  });

  it('not https, or a name that does not resolve: said, and what save and publish would answer', async () => {
    lookups.length = 0;
    const http = await verdict('http://api.example.com/quote');
    expect(http).toMatchObject({ https: false, host: 'api.example.com', problem: 'The endpoint must use https:// (got http://).', save: { accepted: false }, publish: { accepted: false } });
    const missing = await verdict('https://not-yet.example.org/hook');
    expect(missing).toMatchObject({ https: true, addresses: [], resolution: 'does not resolve', save: { accepted: true, message: null } });
    expect(missing.publish).toEqual({ accepted: false, message: 'The endpoint host not-yet.example.org does not resolve. A tool can be published once its name resolves to a public address.' });
    const garbage = await verdict('not a url');
    expect(garbage).toMatchObject({ https: false, host: null, addresses: [], save: { accepted: false } });
    expect(lookups).toEqual(['api.example.com', 'not-yet.example.org']);
  });

  it('with TOOL_ALLOW_PRIVATE_ENDPOINTS an internal address is still named internal, and accepted only because of that setting', async () => {
    const data = await verdict('https://localhost:8443/tool', localSession, local);
    expect(data).toMatchObject({
      addresses: [
        { address: '127.0.0.1', public: false, reason: 'loopback', reasonText: 'a loopback address' },
        { address: '::1', public: false, reason: 'loopback' },
      ],
      save: { accepted: true, message: null },
      publish: { accepted: true, message: null },
      allowedOnlyByPrivateSetting: true,
    });
    expect((await verdict('https://api.example.com/', localSession, local)).allowedOnlyByPrivateSetting).toBe(false);
  });

  it('works with an access token that has tools:write, and refuses one that has only tools:read', async () => {
    const writer = await getAccessToken(t.app, ada.app, 'tools:write');
    expect((await check('https://api.example.com/', { authorization: `Bearer ${writer}` })).statusCode).toBe(200);
    const reader = await getAccessToken(t.app, ada.app, 'tools:read');
    expect(await refused(() => check('https://api.example.com/', { authorization: `Bearer ${reader}` }))).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });

  it('refuses without a session, without X-CSRF-Token, and an operator with no developer account', async () => {
    expect(await refused(() => check('https://api.example.com/', {}))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const noCsrf = await refused(() => check('https://api.example.com/', as(adaSession, false)));
    expect([noCsrf.status, noCsrf.code]).toEqual([403, 'FORBIDDEN']);
    expect(noCsrf.error).toContain('X-CSRF-Token');
    const operator = await refused(() => check('https://api.example.com/', as(operatorSession)));
    expect([operator.status, operator.code]).toEqual([403, 'FORBIDDEN']);
    expect(operator.error).toContain('not a developer account');
  });

  it('refuses malformed and oversized input with 400, never a 500, and looks nothing up', async () => {
    lookups.length = 0;
    for (const body of [{}, { endpoint: '' }, { endpoint: 42 }, { endpoint: 'https://api.example.com/', extra: 1 }, { endpoint: `https://api.example.com/${'a'.repeat(2048)}` }]) {
      const res = await refused(() => t.app.inject({ method: 'POST', url: URL_PATH, headers: as(adaSession), payload: body }));
      expect([res.status, res.code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'VALIDATION_ERROR']);
    }
    const text = await refused(() => t.app.inject({ method: 'POST', url: URL_PATH, headers: { ...as(adaSession), 'content-type': 'text/plain' }, payload: 'https://x' }));
    expect(text.status).toBe(415);
    const huge = await refused(() => t.app.inject({ method: 'POST', url: URL_PATH, headers: { ...as(adaSession), 'content-type': 'application/json' }, payload: JSON.stringify({ endpoint: 'x'.repeat(300 * 1024) }) }));
    expect(huge.status).toBe(413);
    expect(lookups).toEqual([]);
  });

  it(`is limited to ${ENDPOINT_CHECKS.limit} checks a minute per developer`, async () => {
    const other = await createDeveloperWithApp(t.database, t.clock);
    const session = await signIn(t, other.developer.email);
    // A fresh window, so the count is exactly this test's.
    t.clock.advance(60_000);
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i <= ENDPOINT_CHECKS.limit; i++) last = await check('https://1.1.1.1/', as(session));
    expect(last?.statusCode).toBe(429);
    expect(last?.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    // Another developer's budget is their own.
    expect((await check('https://1.1.1.1/')).statusCode).toBe(200);
  });
});
