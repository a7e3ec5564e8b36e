import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession, getAccessToken } from '../../test/support/factories.js';
import { fixedResolver, toolInput } from '../../test/support/tools-factories.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

describe.each(testDialects())('POST /api/dev/tools on %s', (dialect) => {
  let t: TestContext;
  let dev: Session;
  let other: Session;
  let readOnly: Record<string, string>;

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
    dev = await developerSession(t.database, t.clock, t.app);
    other = await developerSession(t.database, t.clock, t.app);
    readOnly = { authorization: `Bearer ${await getAccessToken(t.app, dev.app, 'tools:read')}` };
  });
  afterAll(async () => t.close());

  const create = (payload: unknown, headers: Record<string, string> = dev.auth) =>
    t.app.inject({ method: 'POST', url: '/api/dev/tools', headers, payload: payload as Record<string, unknown> });

  async function countTools(): Promise<number> {
    const row = await t.database.db.selectFrom('tools').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('happy path', () => {
    it('creates a draft with the documented defaults', async () => {
      const res = await create({ name: 'get_quote', description: 'Returns a shipping quote.', endpoint: 'https://api.example.com/quote' });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.success).toBe(true);
      expect(body.data).toEqual({
        id: expect.stringMatching(/^tool_[0-9A-Za-z]{20}$/),
        name: 'get_quote',
        description: 'Returns a shipping quote.',
        endpoint: 'https://api.example.com/quote',
        method: 'POST',
        authType: 'none',
        apiKeyHeader: null,
        category: 'other',
        parameters: [],
        oauth: null,
        status: 'draft',
        version: 0,
        hasUnpublishedChanges: false,
        createdAt: t.clock.now().toISOString(),
        updatedAt: t.clock.now().toISOString(),
        publishedAt: null,
      });
      const fetched = await t.app.inject({ method: 'GET', url: `/api/dev/tools/${body.data.id}`, headers: dev.auth });
      expect(fetched.json().data).toEqual(body.data);
    });

    it('stores every field given, filling parameter defaults', async () => {
      const res = await create({
        name: 'Create-Lead_2',
        description: 'Creates a lead in the CRM.',
        endpoint: 'https://tools.example.net:8443/v1/leads?source=agent',
        method: 'PATCH',
        authType: 'api_key',
        apiKeyHeader: 'X-Acme-Key',
        category: 'crm',
        parameters: [
          { name: 'email', type: 'string', description: 'Email of the lead.', required: true },
          { name: 'tags', type: 'array', items: 'string' },
          { name: '_score', type: 'number', required: false },
          { name: 'vip', type: 'boolean', description: '' },
        ],
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({
        name: 'Create-Lead_2',
        endpoint: 'https://tools.example.net:8443/v1/leads?source=agent',
        method: 'PATCH',
        authType: 'api_key',
        apiKeyHeader: 'X-Acme-Key',
        category: 'crm',
        parameters: [
          { name: 'email', type: 'string', description: 'Email of the lead.', required: true },
          { name: 'tags', type: 'array', description: '', required: false, items: 'string' },
          { name: '_score', type: 'number', description: '', required: false },
          { name: 'vip', type: 'boolean', description: '', required: false },
        ],
      });
    });

    it.each(['GET', 'PUT', 'DELETE'])('accepts method %s', async (method) => {
      expect((await create(toolInput({ method }))).statusCode).toBe(201);
    });

    it.each(['bearer', 'basic', 'hmac'])('accepts authType %s', async (authType) => {
      expect((await create(toolInput({ authType }))).statusCode).toBe(201);
    });

    it.each(['sales', 'marketing', 'support', 'scheduling', 'ecommerce', 'payments', 'finance', 'communication', 'productivity', 'data', 'developer'])(
      'accepts category %s',
      async (category) => {
        expect((await create(toolInput({ category }))).statusCode).toBe(201);
      },
    );

    it('accepts the limits exactly: 64-character name, 1024-character description, 64 parameters of 512-character descriptions', async () => {
      const parameters = Array.from({ length: 64 }, (_, i) => ({ name: `p${i}`, type: 'string', description: 'd'.repeat(512) }));
      const res = await create({ name: `a${'b'.repeat(63)}`, description: 'x'.repeat(1024), endpoint: 'https://api.example.com/q', parameters });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.parameters).toHaveLength(64);
    });

    it('accepts an endpoint whose name does not resolve yet (it may not be deployed)', async () => {
      const res = await create(toolInput({ endpoint: 'https://not-deployed-yet.example.org/quote' }));
      expect(res.statusCode).toBe(201);
    });

    it('accepts a public IP literal endpoint', async () => {
      expect((await create(toolInput({ endpoint: 'https://93.184.215.14/quote' }))).statusCode).toBe(201);
      expect((await create(toolInput({ endpoint: 'https://[2606:4700:4700::1111]/quote' }))).statusCode).toBe(201);
    });

    it('lets two developers use the same name', async () => {
      expect((await create(toolInput({ name: 'shared_name' }))).statusCode).toBe(201);
      expect((await create(toolInput({ name: 'shared_name' }), other.auth)).statusCode).toBe(201);
    });
  });

  describe('field rules', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['missing name', { name: undefined }, 'name'],
      ['missing description', { description: undefined }, 'description'],
      ['missing endpoint', { endpoint: undefined }, 'endpoint'],
      ['name starting with a digit', { name: '1quote' }, 'name'],
      ['name starting with _', { name: '_quote' }, 'name'],
      ['name with a space', { name: 'get quote' }, 'name'],
      ['name with a dot', { name: 'get.quote' }, 'name'],
      ['name with a non-ASCII letter', { name: 'cotización' }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['65-character name', { name: `a${'b'.repeat(64)}` }, 'name'],
      ['empty description', { description: '' }, 'description'],
      ['blank description', { description: '   ' }, 'description'],
      ['1025-character description', { description: 'x'.repeat(1025) }, 'description'],
      ['lowercase method', { method: 'post' }, 'method'],
      ['unknown method', { method: 'HEAD' }, 'method'],
      ['unknown authType', { authType: 'oauth1' }, 'authType'],
      ['unknown category', { category: 'games' }, 'category'],
      ['apiKeyHeader that is not a header name', { authType: 'api_key', apiKeyHeader: 'X Api Key' }, 'apiKeyHeader'],
      ['empty apiKeyHeader', { authType: 'api_key', apiKeyHeader: '' }, 'apiKeyHeader'],
      ['apiKeyHeader the service sets itself', { authType: 'api_key', apiKeyHeader: 'Content-Type' }, 'apiKeyHeader'],
      ['apiKeyHeader for the signature', { authType: 'api_key', apiKeyHeader: 'x-svc-signature' }, 'apiKeyHeader'],
      ['apiKeyHeader without api_key', { authType: 'bearer', apiKeyHeader: 'X-Key' }, 'apiKeyHeader'],
      ['apiKeyHeader with the default authType', { apiKeyHeader: 'X-Key' }, 'apiKeyHeader'],
      ['parameters that are not an array', { parameters: { name: 'x', type: 'string' } }, 'parameters'],
      ['parameter name starting with a digit', { parameters: [{ name: '9lives', type: 'string' }] }, 'parameters.0.name'],
      ['parameter name with a dash', { parameters: [{ name: 'first-name', type: 'string' }] }, 'parameters.0.name'],
      ['parameter named _svc_context', { parameters: [{ name: '_svc_context', type: 'string' }] }, 'parameters.0.name'],
      ['repeated parameter name', { parameters: [{ name: 'a', type: 'string' }, { name: 'a', type: 'number' }] }, 'parameters.1.name'],
      ['parameter without a type', { parameters: [{ name: 'a' }] }, 'parameters.0.type'],
      ['parameter of type object', { parameters: [{ name: 'a', type: 'object' }] }, 'parameters.0.type'],
      ['513-character parameter description', { parameters: [{ name: 'a', type: 'string', description: 'x'.repeat(513) }] }, 'parameters.0.description'],
      ['required as a string', { parameters: [{ name: 'a', type: 'string', required: 'yes' }] }, 'parameters.0.required'],
      ['items on a string parameter', { parameters: [{ name: 'a', type: 'string', items: 'string' }] }, 'parameters.0.items'],
      ['items of type object', { parameters: [{ name: 'a', type: 'array', items: 'object' }] }, 'parameters.0.items'],
      ['unknown parameter field', { parameters: [{ name: 'a', type: 'string', default: 'x' }] }, 'parameters.0.default'],
      ['65 parameters', { parameters: Array.from({ length: 65 }, (_, i) => ({ name: `p${i}`, type: 'string' })) }, 'parameters'],
      ['unknown field status', { status: 'published' }, 'status'],
      ['unknown field id', { id: 'tool_x' }, 'id'],
      ['unknown field version', { version: 3 }, 'version'],
      ['name as a number', { name: 42 }, 'name'],
      ['endpoint as a number', { endpoint: 443 }, 'endpoint'],
      ['description as null', { description: null }, 'description'],
      ['2049-character endpoint', { endpoint: `https://api.example.com/${'a'.repeat(2030)}` }, 'endpoint'],
    ])('refuses a %s with VALIDATION_ERROR', async (_label, overrides, path) => {
      const before = await countTools();
      const res = await create(toolInput(overrides));
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', requestId: expect.stringMatching(/^req_/) });
      expect(body.error).toMatch(/^Invalid request: /);
      expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
      expect(await countTools()).toBe(before);
    });

    it('reports every parameter problem at once', async () => {
      const res = await create(toolInput({ parameters: [{ name: '_svc_context', type: 'string' }, { name: 'a', type: 'string', items: 'number' }, { name: 'a', type: 'array' }] }));
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        { path: 'parameters.0.name', message: 'cannot be _svc_context: the service uses that key for call context' },
        { path: 'parameters.1.items', message: 'only applies to parameters of type array' },
        { path: 'parameters.2.name', message: 'repeats the parameter name "a"' },
      ]);
    });

    it('refuses a name you already use with 409 CONFLICT naming the existing tool', async () => {
      const first = await create(toolInput({ name: 'duplicate_me' }));
      const res = await create(toolInput({ name: 'duplicate_me' }));
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'CONFLICT', field: 'name' });
      expect(res.json().error).toContain(`You already have a tool named "duplicate_me" (${first.json().data.id})`);
    });
  });

  describe('endpoint rules', () => {
    it.each<[string, string, RegExp]>([
      ['http', 'http://api.example.com/quote', /must use https:\/\//],
      ['user info', 'https://user:secret@api.example.com/quote', /user name or password/],
      ['a fragment', 'https://api.example.com/quote#top', /fragment/],
      ['not a URL', 'api.example.com/quote', /not a valid URL/],
      ['a private IPv4 literal', 'https://10.0.0.5/quote', /points to 10\.0\.0\.5, a private address/],
      ['a loopback IPv4 literal', 'https://127.0.0.1:8443/quote', /points to 127\.0\.0\.1, a loopback address/],
      ['cloud metadata', 'https://169.254.169.254/latest', /169\.254\.169\.254, a link-local address/],
      ['an IPv6 loopback literal', 'https://[::1]/quote', /points to ::1, a loopback address/],
      ['an IPv4-mapped private literal', 'https://[::ffff:10.1.2.3]/quote', /which carries 10\.1\.2\.3\), a private address/],
      ['localhost', 'https://localhost/quote', /localhost, a loopback name/],
      ['a name resolving to a private address', 'https://internal.example.com/quote', /resolves to 10\.0\.0\.5, a private address/],
      ['a name with one internal answer among public ones', 'https://rebind.example.com/quote', /resolves to 127\.0\.0\.1, a loopback address/],
      ['a name resolving to cloud metadata', 'https://metadata.example.com/quote', /resolves to 169\.254\.169\.254, a link-local address/],
      ['a name resolving to a mapped private address', 'https://mapped.example.com/quote', /carries 192\.168\.1\.20\), a private address/],
    ])('refuses %s with ENDPOINT_NOT_ALLOWED', async (_label, endpoint, message) => {
      const before = await countTools();
      const res = await create(toolInput({ endpoint }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, code: 'ENDPOINT_NOT_ALLOWED', field: 'endpoint' });
      expect(res.json().error).toMatch(message);
      expect(await countTools()).toBe(before);
    });
  });

  describe('security', () => {
    it('needs a token: 401 UNAUTHORIZED with a Bearer challenge', async () => {
      const res = await create(toolInput(), {});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard"');
    });

    it('refuses an unknown token with 401 INVALID_TOKEN', async () => {
      const res = await create(toolInput(), { authorization: 'Bearer svc_at_notarealtoken' });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('INVALID_TOKEN');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('refuses a token without tools:write with 403 INSUFFICIENT_SCOPE', async () => {
      const before = await countTools();
      const res = await create(toolInput(), readOnly);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard", error="insufficient_scope", scope="tools:write"');
      expect(await countTools()).toBe(before);
    });

    it('checks the token before reading the body', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: { 'content-type': 'application/json' }, payload: '{oops' });
      expect(res.statusCode).toBe(401);
    });

    it.each<[string, Record<string, string>, string, number, string]>([
      ['malformed JSON', { 'content-type': 'application/json' }, '{"name": "x",', 400, 'VALIDATION_ERROR'],
      ['an empty body', { 'content-type': 'application/json' }, '', 400, 'VALIDATION_ERROR'],
      ['a JSON array', { 'content-type': 'application/json' }, '[]', 400, 'VALIDATION_ERROR'],
      ['JSON null', { 'content-type': 'application/json' }, 'null', 400, 'VALIDATION_ERROR'],
      ['a JSON string', { 'content-type': 'application/json' }, '"tool"', 400, 'VALIDATION_ERROR'],
      ['a __proto__ key', { 'content-type': 'application/json' }, JSON.stringify(toolInput()).replace('{', '{"__proto__": {"admin": true},'), 400, 'VALIDATION_ERROR'],
      ['a constructor.prototype key', { 'content-type': 'application/json' }, JSON.stringify(toolInput()).replace('{', '{"constructor": {"prototype": {"admin": true}},'), 400, 'VALIDATION_ERROR'],
      ['text/plain', { 'content-type': 'text/plain' }, JSON.stringify(toolInput()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x&description=y', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['no content type', {}, JSON.stringify(toolInput()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ])('answers %s with a clear 4xx and writes nothing', async (_label, headers, payload, status, code) => {
      const before = await countTools();
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: { ...dev.auth, ...headers }, payload });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ success: false, code });
      expect(await countTools()).toBe(before);
    });

    it('refuses a body over 256 KB with 413 PAYLOAD_TOO_LARGE', async () => {
      const payload = JSON.stringify(toolInput({ description: 'x'.repeat(257 * 1024) }));
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: { ...dev.auth, 'content-type': 'application/json' }, payload });
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('stores SQL- and HTML-looking input as plain text', async () => {
      const description = "Robert'); DROP TABLE tools;-- <script>alert(1)</script>";
      const res = await create(toolInput({ description }));
      expect(res.statusCode).toBe(201);
      expect(res.json().data.description).toBe(description);
      expect(await countTools()).toBeGreaterThan(0);
    });
  });
});
