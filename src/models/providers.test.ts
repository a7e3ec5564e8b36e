import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRing } from '../lib/secrets.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { fixedResolver, TEST_DNS } from '../../test/support/tools-factories.js';
import { openApiKey } from './api-key.js';

/**
 * Model providers (/api/org/model-providers) and the agent's model, through the Operator API: the key
 * goes in and never comes out (answers, log lines), base URLs obey the tool endpoints' address policy,
 * another organization's provider is a missing one everywhere, and a provider in use is not deleted.
 */
const KEY = 'sk-proj-key-marker-4e1d9a7c';
const DNS = { ...TEST_DNS, 'ollama.lan': ['192.168.1.50'] };

describe.each(testDialects())('model providers on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  const lines: string[] = [];
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    t = await createTestContext(dialect, {
      env: { LOG_LEVEL: 'trace' },
      deps: { resolveHost: fixedResolver(DNS), logStream: new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }) },
    });
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => t.close());

  const rows = (orgId: string) => t.database.db.selectFrom('model_providers').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  async function provider(who: OrgWithKey, body: Record<string, unknown> = { name: 'OpenAI', kind: 'openai', apiKey: KEY }) {
    const res = await call('POST', '/api/org/model-providers', who, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; baseUrl: string; hasApiKey: boolean; updatedAt: string };
  }

  describe('providers', () => {
    it('adds a provider with its kind\'s base URL; the key is sealed, bound to the provider, and only said to exist', async () => {
      const res = await call('POST', '/api/org/model-providers', org, { name: ' OpenAI ', kind: 'openai', apiKey: KEY });
      expect(res.statusCode).toBe(201);
      const created = res.json().data;
      expect(created).toEqual({ id: expect.stringMatching(/^mp_[0-9A-Za-z]{20}$/), name: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com/v1', hasApiKey: true, createdAt: expect.any(String), updatedAt: created.createdAt });
      expect(res.body).not.toContain(KEY);
      expect((await call('GET', `/api/org/model-providers/${created.id}`, org)).json().data).toEqual(created);
      const [row] = (await rows(org.orgId)).filter((r) => r.id === created.id);
      expect(JSON.stringify(row)).not.toContain(KEY);
      const keys = keyRing(t.config.secretsKey);
      expect(row!.api_key_key_id).toBe(keys.current.id);
      expect(openApiKey(keys, created.id, row!.api_key_sealed!)).toBe(KEY);
      // Bound to its provider: the same sealed value under another id does not open.
      expect(() => openApiKey(keys, 'mp_aaaaaaaaaaaaaaaaaaaa', row!.api_key_sealed!)).toThrow();

      const anthropic = await provider(org, { name: 'Claude', kind: 'anthropic' });
      expect(anthropic).toMatchObject({ baseUrl: 'https://api.anthropic.com/v1', hasApiKey: false });
      const compatible = await provider(org, { name: 'OpenRouter', kind: 'openai-compatible', baseUrl: 'https://API.example.com/api/v1/', apiKey: KEY });
      expect(compatible.baseUrl).toBe('https://api.example.com/api/v1');
    });

    it('lists newest first with keyset paging, only the organization\'s own', async () => {
      const fresh = await createOrgWithKey(t.database, t.clock);
      for (const name of ['a', 'b', 'c']) {
        t.clock.advance(1000);
        await provider(fresh, { name, kind: 'anthropic', apiKey: KEY });
      }
      const page1 = await call('GET', '/api/org/model-providers?limit=2', fresh);
      expect(page1.body).not.toContain(KEY);
      expect(page1.json().data.items.map((p: { name: string }) => p.name)).toEqual(['c', 'b']);
      const page2 = (await call('GET', `/api/org/model-providers?limit=2&cursor=${page1.json().data.nextCursor}`, fresh)).json().data;
      expect(page2).toMatchObject({ items: [{ name: 'a', hasApiKey: true }], nextCursor: null });
      expect((await call('GET', '/api/org/model-providers', other)).json().data.items).toEqual([]);
    });

    it('changes any subset; apiKey null removes the key', async () => {
      const created = await provider(org);
      t.clock.advance(1000);
      const renamed = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { name: 'OpenAI (prod)' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json().data).toMatchObject({ name: 'OpenAI (prod)', hasApiKey: true, baseUrl: 'https://api.openai.com/v1' });
      expect(renamed.json().data.updatedAt > created.updatedAt).toBe(true);
      const removed = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { apiKey: null });
      expect(removed.json().data.hasApiKey).toBe(false);
      const row = (await rows(org.orgId)).find((r) => r.id === created.id)!;
      expect([row.api_key_sealed, row.api_key_key_id]).toEqual([null, null]);
      // Without a key, the URL may move freely; a new kind takes its own default URL.
      const moved = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { kind: 'anthropic' });
      expect(moved.json().data).toMatchObject({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', hasApiKey: false });
      const keyed = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { apiKey: KEY });
      expect(keyed.json().data.hasApiKey).toBe(true);
      expect(keyed.body).not.toContain(KEY);
    });

    it('never lets a stored key follow a new base URL: the key must be given again with it', async () => {
      const created = await provider(org);
      const before = await rows(org.orgId);
      for (const change of [{ baseUrl: 'https://api.example.com/v1' }, { kind: 'anthropic' }, { kind: 'openai-compatible', baseUrl: 'https://tools.example.net/v1' }]) {
        const res = await call('PATCH', `/api/org/model-providers/${created.id}`, org, change);
        expect(res.statusCode, JSON.stringify(change)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'apiKey', error: 'A new baseUrl would send the stored API key to another server: give apiKey again (or null to remove it) in the same request.' });
      }
      expect(await rows(org.orgId)).toEqual(before);
      const withKey = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { baseUrl: 'https://api.example.com/v1', apiKey: 'sk-new-key' });
      expect(withKey.json().data).toMatchObject({ baseUrl: 'https://api.example.com/v1', hasApiKey: true });
      // The same URL again is no move.
      expect((await call('PATCH', `/api/org/model-providers/${created.id}`, org, { baseUrl: 'https://api.example.com/v1/' })).statusCode).toBe(200);
    });

    it('answers 404 for another organization\'s provider on every route, and changes nothing', async () => {
      const theirs = await provider(other);
      const before = await rows(other.orgId);
      for (const [method, payload] of [['GET', undefined], ['PATCH', { name: 'Mine now' }], ['PATCH', { apiKey: null }], ['DELETE', undefined]] as const) {
        const res = await call(method, `/api/org/model-providers/${theirs.id}`, org, payload);
        expect(res.statusCode, method).toBe(404);
        expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'No model provider has that id.' });
      }
      expect(await rows(other.orgId)).toEqual(before);
      for (const id of ['mp_aaaaaaaaaaaaaaaaaaaa', 'agt_aaaaaaaaaaaaaaaaaaaa', 'nope']) {
        expect((await call('GET', `/api/org/model-providers/${id}`, org)).json().code).toBe('NOT_FOUND');
      }
    });

    it('refuses requests without credentials before anything else', async () => {
      const res = await call('POST', '/api/org/model-providers', null, { name: 'OpenAI', kind: 'openai', apiKey: KEY });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHORIZED');
      expect((await call('GET', '/api/org/model-providers', { auth: { authorization: 'Bearer svc_org_notakey' } })).statusCode).toBe(401);
    });

    it.each([
      ['an unknown kind', { name: 'M', kind: 'mistral' }, 'kind'],
      ['a blank name', { name: '   ', kind: 'openai' }, 'name'],
      ['a name over 100 characters', { name: 'n'.repeat(101), kind: 'openai' }, 'name'],
      ['a key with a space', { name: 'M', kind: 'openai', apiKey: 'sk-one two' }, 'apiKey'],
      ['a key over 1000 characters', { name: 'M', kind: 'openai', apiKey: 'k'.repeat(1001) }, 'apiKey'],
      ['a key with a line break', { name: 'M', kind: 'openai', apiKey: 'sk-a\nb' }, 'apiKey'],
      ['an unknown field', { name: 'M', kind: 'openai', organization: 'x' }, undefined],
      ['openai-compatible without its baseUrl', { name: 'M', kind: 'openai-compatible', apiKey: KEY }, 'baseUrl'],
    ])('refuses %s with 400 and writes nothing', async (_what, body, field) => {
      const before = await rows(org.orgId);
      const res = await call('POST', '/api/org/model-providers', org, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      if (field) expect(JSON.stringify(res.json())).toContain(field);
      expect(await rows(org.orgId)).toEqual(before);
    });

    it('refuses a body over 64 KB with 413', async () => {
      const res = await call('POST', '/api/org/model-providers', org, { name: 'M', kind: 'openai', apiKey: 'k'.repeat(70_000) });
      expect(res.statusCode).toBe(413);
    });

    it.each([
      ['plain http://', 'http://api.example.com/v1', 'The base URL must use https://. Plain http:// is only for a local model server, with MODEL_ALLOW_PRIVATE_ENDPOINTS=1 in development.'],
      ['plain http:// to loopback', 'http://127.0.0.1:11434/v1', 'The base URL must use https://. Plain http:// is only for a local model server, with MODEL_ALLOW_PRIVATE_ENDPOINTS=1 in development.'],
      ['a private address', 'https://10.0.0.5/v1', 'The base URL points to 10.0.0.5, a private address. Model provider base URLs must be public internet addresses.'],
      ['the metadata address', 'https://169.254.169.254/latest', undefined],
      ['a loopback name', 'https://localhost:8443/v1', 'The base URL points to localhost, a loopback name. Model provider base URLs must be public internet addresses.'],
      ['a name resolving to a private address', 'https://internal.example.com/v1', undefined],
      ['a name with one internal answer', 'https://rebind.example.com/v1', undefined],
      ['credentials in the URL', 'https://user:pw@api.example.com/v1', 'The base URL must not contain a user name or password: give the key as apiKey.'],
      ['a query', 'https://api.example.com/v1?api-version=2024', 'The base URL must not have a query (?…): the client adds paths such as /chat/completions to it.'],
      ['a fragment', 'https://api.example.com/v1#x', undefined],
      ['not a URL', 'api.example.com', undefined],
      ['another scheme', 'ftp://api.example.com/v1', undefined],
    ])('refuses %s as the base URL (ENDPOINT_NOT_ALLOWED, field baseUrl), on create and update', async (_what, baseUrl, message) => {
      const before = await rows(org.orgId);
      const res = await call('POST', '/api/org/model-providers', org, { name: 'M', kind: 'openai-compatible', baseUrl });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'baseUrl' });
      if (message) expect(res.json().error).toBe(message);
      expect(res.json().error).not.toMatch(/tool|authType/i);
      expect(await rows(org.orgId)).toEqual(before);
    });

    it('refuses a bad base URL on update too, and keeps the old one', async () => {
      const created = await provider(org, { name: 'No key', kind: 'openai' });
      const res = await call('PATCH', `/api/org/model-providers/${created.id}`, org, { baseUrl: 'https://10.0.0.5/v1' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'baseUrl' });
      expect((await call('GET', `/api/org/model-providers/${created.id}`, org)).json().data.baseUrl).toBe('https://api.openai.com/v1');
    });
  });

  describe('the agent\'s model', () => {
    const model = (providerId: string, extra: Record<string, unknown> = {}) => ({ providerId, model: 'gpt-4.1-mini', instructions: 'You answer for Acme.\nBe brief.', ...extra });

    it('sets, answers and clears the model, with defaults and without any key', async () => {
      const agent = await createAgent(t.app, org);
      expect((await call('GET', `/api/org/agents/${agent.id}`, org)).json().data.model).toBeNull();
      const mp = await provider(org);
      const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mp.id) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.model).toEqual({ providerId: mp.id, model: 'gpt-4.1-mini', instructions: 'You answer for Acme.\nBe brief.', temperature: null, maxToolRounds: 8 });
      const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mp.id, { temperature: 0.7, maxToolRounds: 32 }) });
      expect(set.json().data.model).toMatchObject({ temperature: 0.7, maxToolRounds: 32 });
      const read = await call('GET', `/api/org/agents/${agent.id}`, org);
      expect(read.json().data.model).toEqual(set.json().data.model);
      const listed = await call('GET', '/api/org/agents', org);
      expect(listed.json().data.items.find((a: { id: string }) => a.id === agent.id).model).toEqual(set.json().data.model);
      for (const body of [res.body, set.body, read.body, listed.body]) expect(body).not.toContain(KEY);
      const cleared = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: null });
      expect(cleared.json().data.model).toBeNull();
    });

    it('answers 404 for another organization\'s provider (or a missing one) and leaves the agent as it was', async () => {
      const agent = await createAgent(t.app, org);
      const mine = await provider(org);
      await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mine.id) });
      const before = await t.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
      const theirs = await provider(other);
      for (const providerId of [theirs.id, 'mp_aaaaaaaaaaaaaaaaaaaa']) {
        const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { name: 'Renamed', model: model(providerId) });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ code: 'NOT_FOUND', field: 'model.providerId', error: 'No model provider has that id.' });
      }
      expect(await t.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow()).toEqual(before);
    });

    it.each([
      ['a temperature over 2', { temperature: 2.5 }],
      ['a negative temperature', { temperature: -0.1 }],
      ['no tool rounds', { maxToolRounds: 0 }],
      ['33 tool rounds', { maxToolRounds: 33 }],
      ['a fractional round count', { maxToolRounds: 2.5 }],
      ['instructions over 16,000 characters', { instructions: 'i'.repeat(16_001) }],
      ['a blank model id', { model: '   ' }],
      ['a model id over 200 characters', { model: 'm'.repeat(201) }],
      ['a malformed provider id', { providerId: 'openai' }],
      ['an unknown field', { topP: 0.9 }],
    ])('refuses %s with 400 and changes nothing', async (_what, change) => {
      const agent = await createAgent(t.app, org);
      const mp = await provider(org);
      const before = await t.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
      const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mp.id, change) });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      expect(await t.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow()).toEqual(before);
      const missing = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: { providerId: mp.id, model: 'x' } });
      expect(missing.statusCode).toBe(400);
    });

    it('accepts 16,000 characters of instructions', async () => {
      const agent = await createAgent(t.app, org);
      const mp = await provider(org);
      const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mp.id, { instructions: 'é'.repeat(16_000) }) });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('refuses to delete a provider while an agent uses it (409, naming the agent), and deletes it once none does', async () => {
      const agent = await createAgent(t.app, org);
      const mp = await provider(org);
      await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: model(mp.id) });
      const refused = await call('DELETE', `/api/org/model-providers/${mp.id}`, org);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'CONFLICT' });
      expect(refused.json().error).toContain('Support bot');
      expect((await call('GET', `/api/org/model-providers/${mp.id}`, org)).statusCode).toBe(200);

      await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: null });
      const deleted = await call('DELETE', `/api/org/model-providers/${mp.id}`, org);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json().data).toEqual({ id: mp.id, deleted: true });
      expect((await call('GET', `/api/org/model-providers/${mp.id}`, org)).statusCode).toBe(404);
      expect((await call('DELETE', `/api/org/model-providers/${mp.id}`, org)).statusCode).toBe(404);
    });
  });

  it('writes no API key to any log line, whatever the outcome', async () => {
    const marker = 'sk-log-marker-0b7e3f';
    const mp = await provider(org, { name: 'Logged', kind: 'openai', apiKey: marker });
    await call('PATCH', `/api/org/model-providers/${mp.id}`, org, { apiKey: marker });
    await call('PATCH', `/api/org/model-providers/${mp.id}`, org, { baseUrl: 'https://10.0.0.5/v1', apiKey: marker });
    await call('POST', '/api/org/model-providers', org, { name: 'Bad', kind: 'mistral', apiKey: marker });
    await call('POST', '/api/org/model-providers', org, { name: 'Bad', kind: 'openai', apiKey: `${marker} x` });
    await call('POST', '/api/org/model-providers', null, { name: 'No auth', kind: 'openai', apiKey: marker });
    await call('GET', `/api/org/model-providers/${mp.id}`, org);
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.some((line) => line.includes('/api/org/model-providers'))).toBe(true);
    expect(lines.filter((line) => line.includes(marker) || line.includes(KEY))).toEqual([]);
  });
});

describe.each(testDialects())('model providers with MODEL_ALLOW_PRIVATE_ENDPOINTS=1 on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  beforeAll(async () => {
    t = await createTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }, deps: { resolveHost: fixedResolver(DNS) } });
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const create = (baseUrl: string) => orgCaller(t.app)('POST', '/api/org/model-providers', org, { name: 'Local', kind: 'openai-compatible', baseUrl });

  it.each([
    ['Ollama on localhost', 'http://localhost:11434/v1', 'http://localhost:11434/v1'],
    ['llama.cpp on loopback', 'http://127.0.0.1:8080/v1/', 'http://127.0.0.1:8080/v1'],
    ['IPv6 loopback', 'http://[::1]:11434/v1', 'http://[::1]:11434/v1'],
    ['a LAN name resolving privately', 'http://ollama.lan:11434/v1', 'http://ollama.lan:11434/v1'],
    ['http:// on port 443 kept as given', 'http://192.168.1.50:443/v1', 'http://192.168.1.50:443/v1'],
    ['https:// on a private address', 'https://10.0.0.5/v1', 'https://10.0.0.5/v1'],
  ])('accepts %s', async (_what, baseUrl, stored) => {
    const res = await create(baseUrl);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.baseUrl).toBe(stored);
  });

  it.each([
    ['a public address', 'http://93.184.215.14/v1'],
    ['a name resolving publicly', 'http://api.example.com/v1'],
    ['a name with one public answer', 'http://rebind.example.com/v1'],
    ['a name that does not resolve', 'http://nowhere.example/v1'],
  ])('still refuses plain http:// to %s: the key would cross the internet unencrypted', async (_what, baseUrl) => {
    const before = await t.database.db.selectFrom('model_providers').select('id').execute();
    const res = await create(baseUrl);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'baseUrl' });
    expect(res.json().error).toMatch(/^Plain http:\/\/ is only for a model server on a private or loopback address/);
    expect(await t.database.db.selectFrom('model_providers').select('id').execute()).toEqual(before);
  });
});

describe.each(testDialects())('who may manage model providers on %s', (dialect) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver(DNS) } });
  });
  afterAll(async () => t.close());

  const ORIGIN = 'http://localhost:3000';
  type Browser = { headers: Record<string, string> };
  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, browser: Browser | null, payload?: object) =>
    t.app.inject({ method, url, headers: { origin: ORIGIN, ...browser?.headers }, ...(payload ? { payload } : {}) });
  function browserOf(res: Awaited<ReturnType<typeof send>>): Browser {
    const cookie = /^svc_session=[^;]*/.exec(String(res.headers['set-cookie']))![0];
    return { headers: { cookie, 'x-csrf-token': res.json().data.csrfToken as string } };
  }

  it('lets a member add, change and delete providers as an owner does (as installations and their credentials)', async () => {
    const signUp = await send('POST', '/api/auth/signup', null, { email: 'owner-models@example.com', password: 'violet kettle marathon', name: 'Olive', organizationName: 'Olive Co' });
    expect(signUp.statusCode, signUp.body).toBe(201);
    const owner = browserOf(signUp);
    const invitation = await send('POST', '/api/org/invitations', owner, { email: 'member-models@example.com' });
    const token = String(invitation.json().data.url).split('/').pop()!;
    const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, null, { name: 'Max', password: 'amber lantern harbour' });
    expect(accepted.json().data.user.role).toBe('member');
    const member = browserOf(accepted);

    const created = await send('POST', '/api/org/model-providers', member, { name: 'OpenAI', kind: 'openai', apiKey: KEY });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    expect((await send('GET', `/api/org/model-providers/${id}`, owner)).json().data.hasApiKey).toBe(true);
    expect((await send('PATCH', `/api/org/model-providers/${id}`, member, { apiKey: null })).statusCode).toBe(200);
    // A session's change needs its CSRF token, as on every Operator API route.
    const forged = await send('DELETE', `/api/org/model-providers/${id}`, { headers: { cookie: member.headers.cookie! } });
    expect(forged.statusCode).toBe(403);
    expect((await send('DELETE', `/api/org/model-providers/${id}`, member)).statusCode).toBe(200);
  });
});
