import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession, getAccessToken } from '../../test/support/factories.js';
import { createTool, fixedResolver, publishTool, toolInput } from '../../test/support/tools-factories.js';
import type { ToolRecord } from './schema.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

describe.each(testDialects())('listing, reading, updating and deleting tools on %s', (dialect) => {
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

  const get = (id: string, headers: Record<string, string> = dev.auth) => t.app.inject({ method: 'GET', url: `/api/dev/tools/${id}`, headers });
  const put = (id: string, payload: unknown, headers: Record<string, string> = dev.auth) =>
    t.app.inject({ method: 'PUT', url: `/api/dev/tools/${id}`, headers, payload: payload as Record<string, unknown> });
  const list = (query = '', headers: Record<string, string> = dev.auth) => t.app.inject({ method: 'GET', url: `/api/dev/tools${query}`, headers });
  const remove = (id: string, headers: Record<string, string> = dev.auth) => t.app.inject({ method: 'DELETE', url: `/api/dev/tools/${id}`, headers });

  describe('GET /api/dev/tools', () => {
    let session: Session;
    const made: ToolRecord[] = [];

    beforeAll(async () => {
      session = await developerSession(t.database, t.clock, t.app);
      const specs = [
        { name: 'crm_lookup', category: 'crm', description: 'Finds a contact in the CRM by email.' },
        { name: 'crm_create', category: 'crm', description: 'Creates a CRM contact.' },
        { name: 'book_meeting', category: 'scheduling', description: 'Books a 100% free MEETING slot.' },
        { name: 'refund', category: 'payments', description: 'Refunds an order_id in full.' },
        { name: 'weather', description: 'Current weather for a city.' },
      ];
      for (const spec of specs) {
        t.clock.advance(1000);
        made.push(await createTool(t.app, session.auth, spec));
      }
      await publishTool(t.app, session.auth, made[0]!.id);
      await publishTool(t.app, session.auth, made[2]!.id);
    });

    const names = (res: { json(): { data: { items: ToolRecord[] } } }) => res.json().data.items.map((tool) => tool.name);

    it('lists only your own tools, newest first', async () => {
      const res = await list('', session.auth);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.nextCursor).toBeNull();
      expect(names(res)).toEqual(['weather', 'refund', 'book_meeting', 'crm_create', 'crm_lookup']);
    });

    it('pages with limit and cursor without gaps or repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const res = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, session.auth);
        expect(res.statusCode).toBe(200);
        const data = res.json().data;
        expect(data.items.length).toBeLessThanOrEqual(2);
        seen.push(...data.items.map((tool: ToolRecord) => tool.name));
        cursor = data.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(['weather', 'refund', 'book_meeting', 'crm_create', 'crm_lookup']);
    });

    it('breaks ties of equal creation time by id', async () => {
      const tied = await developerSession(t.database, t.clock, t.app);
      for (let i = 0; i < 5; i++) await createTool(t.app, tied.auth);
      const all = names(await list('?limit=100', tied.auth));
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`, tied.auth);
        paged.push(...names(res));
        cursor = res.json().data.nextCursor;
      } while (cursor && paged.length < 10);
      expect(paged).toEqual(all);
      expect(new Set(paged).size).toBe(5);
    });

    it.each([
      ['?status=published', ['book_meeting', 'crm_lookup']],
      ['?status=draft', ['weather', 'refund', 'crm_create']],
      ['?category=crm', ['crm_create', 'crm_lookup']],
      ['?category=other', ['weather']],
      ['?category=crm&status=published', ['crm_lookup']],
      ['?q=CRM', ['crm_create', 'crm_lookup']],
      ['?q=meeting', ['book_meeting']],
      ['?q=100%25', ['book_meeting']],
      ['?q=order_id', ['refund']],
      ['?q=_', ['refund', 'crm_create', 'crm_lookup', 'book_meeting'].sort()],
      ['?q=nothing-matches', []],
      ['?category=finance', []],
    ])('filters %s', async (query, expected) => {
      const res = await list(query, session.auth);
      expect(res.statusCode).toBe(200);
      const got = names(res);
      expect(query === '?q=_' ? [...got].sort() : got).toEqual(expected);
    });

    it.each([
      ['?status=deleted', 'status'],
      ['?category=games', 'category'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?q=', 'q'],
      [`?q=${'x'.repeat(101)}`, 'q'],
      ['?sort=name', 'sort'],
    ])('refuses %s with VALIDATION_ERROR', async (query, field) => {
      const res = await list(query, session.auth);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
    });

    it('needs tools:read', async () => {
      const writeOnly = { authorization: `Bearer ${await getAccessToken(t.app, session.app, 'tools:write')}` };
      const res = await list('', writeOnly);
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toContain('scope="tools:read"');
      expect((await list('', {})).statusCode).toBe(401);
    });
  });

  describe('GET /api/dev/tools/{tool_id}', () => {
    it('returns your tool with a read-only token', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await get(tool.id, readOnly);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: tool });
    });

    it('answers 404 TOOL_NOT_FOUND for an unknown id', async () => {
      const res = await get('tool_doesnotexist000000');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'TOOL_NOT_FOUND', error: 'No tool with that id exists in your account.' });
    });

    it('answers ids of any length with a 4xx, never a 500', async () => {
      expect((await get('x'.repeat(100))).statusCode).toBe(404);
      // Fastify's router refuses parameters over 100 characters (414) before any route runs.
      const status = (await get('x'.repeat(101))).statusCode;
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    });

    it('needs a token', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await get(tool.id, {});
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard"');
    });
  });

  describe('PUT /api/dev/tools/{tool_id}', () => {
    it('changes only the fields given', async () => {
      const tool = await createTool(t.app, dev.auth, { method: 'GET', category: 'data' });
      t.clock.advance(5000);
      const res = await put(tool.id, { description: 'A clearer description.' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({ ...tool, description: 'A clearer description.', updatedAt: t.clock.now().toISOString() });
      expect((await get(tool.id)).json().data).toEqual(res.json().data);
    });

    it('replaces the parameter list as a whole, filling defaults', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await put(tool.id, { parameters: [{ name: 'ids', type: 'array', items: 'number' }] });
      expect(res.json().data.parameters).toEqual([{ name: 'ids', type: 'array', description: '', required: false, items: 'number' }]);
      const cleared = await put(tool.id, { parameters: [] });
      expect(cleared.json().data.parameters).toEqual([]);
    });

    it('updates every editable field at once', async () => {
      const tool = await createTool(t.app, dev.auth);
      const changes = {
        name: `renamed_${tool.id.slice(-6)}`,
        description: 'New description.',
        endpoint: 'https://tools.example.net/v2',
        method: 'PUT',
        authType: 'api_key',
        apiKeyHeader: 'X-Token',
        category: 'support',
        parameters: [{ name: 'q', type: 'string', description: 'Query.', required: true }],
      };
      const res = await put(tool.id, changes);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject(changes);
    });

    it('clears apiKeyHeader with null, and drops it when authType moves away from api_key', async () => {
      const tool = await createTool(t.app, dev.auth, { authType: 'api_key', apiKeyHeader: 'X-Key' });
      expect((await put(tool.id, { apiKeyHeader: null })).json().data.apiKeyHeader).toBeNull();
      await put(tool.id, { apiKeyHeader: 'X-Key' });
      const switched = await put(tool.id, { authType: 'hmac' });
      expect(switched.json().data).toMatchObject({ authType: 'hmac', apiKeyHeader: null });
    });

    it('keeps apiKeyHeader when other fields change', async () => {
      const tool = await createTool(t.app, dev.auth, { authType: 'api_key', apiKeyHeader: 'X-Key' });
      expect((await put(tool.id, { category: 'sales' })).json().data.apiKeyHeader).toBe('X-Key');
    });

    it('may keep its own name', async () => {
      const tool = await createTool(t.app, dev.auth);
      expect((await put(tool.id, { name: tool.name })).statusCode).toBe(200);
    });

    it.each<[string, unknown, string, string]>([
      ['an empty body', {}, 'VALIDATION_ERROR', 'body must name at least one field to change: name, description, endpoint'],
      ['an unknown field', { status: 'published' }, 'VALIDATION_ERROR', 'status is not a known field'],
      ['a read-only field', { version: 2 }, 'VALIDATION_ERROR', 'version is not a known field'],
      ['a bad name', { name: 'has space' }, 'VALIDATION_ERROR', 'name'],
      ['a blank description', { description: ' ' }, 'VALIDATION_ERROR', 'description'],
      ['a null name', { name: null }, 'VALIDATION_ERROR', 'name'],
      ['apiKeyHeader without api_key', { apiKeyHeader: 'X-Key' }, 'VALIDATION_ERROR', 'apiKeyHeader only applies when authType is api_key'],
      ['a reserved parameter', { parameters: [{ name: '_svc_context', type: 'string' }] }, 'VALIDATION_ERROR', '_svc_context'],
      ['an http endpoint', { endpoint: 'http://api.example.com/x' }, 'ENDPOINT_NOT_ALLOWED', 'https://'],
      ['a private endpoint', { endpoint: 'https://192.168.0.1/x' }, 'ENDPOINT_NOT_ALLOWED', '192.168.0.1, a private address'],
      ['an endpoint resolving inside', { endpoint: 'https://internal.example.com/x' }, 'ENDPOINT_NOT_ALLOWED', 'resolves to 10.0.0.5'],
    ])('refuses %s and changes nothing', async (_label, payload, code, message) => {
      const tool = await createTool(t.app, dev.auth);
      const res = await put(tool.id, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe(code);
      expect(res.json().error).toContain(message);
      expect((await get(tool.id)).json().data).toEqual(tool);
    });

    it('accepts an endpoint that does not resolve yet', async () => {
      const tool = await createTool(t.app, dev.auth);
      expect((await put(tool.id, { endpoint: 'https://soon.example.org/x' })).statusCode).toBe(200);
    });

    it('refuses a name used by another of your tools with 409', async () => {
      const first = await createTool(t.app, dev.auth);
      const second = await createTool(t.app, dev.auth);
      const res = await put(second.id, { name: first.name });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'CONFLICT', field: 'name' });
      expect((await get(second.id)).json().data.name).toBe(second.name);
    });

    it('answers malformed, mistyped and oversized bodies with 4xx', async () => {
      const tool = await createTool(t.app, dev.auth);
      const raw = (payload: string, type = 'application/json') =>
        t.app.inject({ method: 'PUT', url: `/api/dev/tools/${tool.id}`, headers: { ...dev.auth, 'content-type': type }, payload });
      expect((await raw('{"name":')).statusCode).toBe(400);
      expect((await raw('{"__proto__": {"x": 1}}')).statusCode).toBe(400);
      expect((await raw('{"name": "x"}', 'text/plain')).statusCode).toBe(415);
      expect((await raw(JSON.stringify({ description: 'x'.repeat(300 * 1024) }))).statusCode).toBe(413);
      expect((await get(tool.id)).json().data).toEqual(tool);
    });

    it('needs tools:write', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await put(tool.id, { description: 'Sneaky.' }, readOnly);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toContain('scope="tools:write"');
      expect((await put(tool.id, { description: 'Sneaky.' }, {})).statusCode).toBe(401);
      expect((await get(tool.id)).json().data.description).toBe(tool.description);
    });
  });

  describe('DELETE /api/dev/tools/{tool_id}', () => {
    it('deletes a draft', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await remove(tool.id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { id: tool.id, deleted: true } });
      expect((await get(tool.id)).statusCode).toBe(404);
      expect((await remove(tool.id)).statusCode).toBe(404);
    });

    it('deletes a published tool and its revisions, freeing its name', async () => {
      const tool = await createTool(t.app, dev.auth);
      await publishTool(t.app, dev.auth, tool.id);
      expect((await remove(tool.id)).statusCode).toBe(200);
      const revisions = await t.database.db.selectFrom('tool_revisions').select('id').where('tool_id', '=', tool.id).execute();
      expect(revisions).toEqual([]);
      expect((await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: toolInput({ name: tool.name }) })).statusCode).toBe(201);
    });

    it('ignores a JSON content type without a body', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await t.app.inject({ method: 'DELETE', url: `/api/dev/tools/${tool.id}`, headers: { ...dev.auth, 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(200);
    });

    it('needs tools:write', async () => {
      const tool = await createTool(t.app, dev.auth);
      expect((await remove(tool.id, readOnly)).statusCode).toBe(403);
      expect((await remove(tool.id, {})).statusCode).toBe(401);
      expect((await get(tool.id)).statusCode).toBe(200);
    });
  });

  describe("another developer's tool", () => {
    it('answers exactly like a missing one on get, put, delete, publish and unpublish, and changes nothing', async () => {
      const mine = await createTool(t.app, dev.auth);
      await publishTool(t.app, dev.auth, mine.id);
      const current = (await get(mine.id)).json().data;
      const missing = 'tool_00000000000000000000';
      const attempts = [
        (id: string) => get(id, other.auth),
        (id: string) => put(id, { description: 'Hijacked.' }, other.auth),
        (id: string) => remove(id, other.auth),
        (id: string) => t.app.inject({ method: 'POST', url: `/api/dev/tools/${id}/publish`, headers: other.auth }),
        (id: string) => t.app.inject({ method: 'POST', url: `/api/dev/tools/${id}/unpublish`, headers: other.auth }),
      ];
      for (const attempt of attempts) {
        const theirs = await attempt(mine.id);
        const none = await attempt(missing);
        expect(theirs.statusCode).toBe(404);
        const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
        expect(strip(theirs.json())).toEqual(strip(none.json()));
        expect(theirs.json().code).toBe('TOOL_NOT_FOUND');
      }
      expect((await get(mine.id)).json().data).toEqual(current);
      expect((await list('?limit=100', other.auth)).json().data.items.map((tool: ToolRecord) => tool.id)).not.toContain(mine.id);
    });
  });
});
