import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { createTool, fixedResolver, publishTool, updateTool } from '../../test/support/tools-factories.js';
import type { ToolRecord } from '../tools/schema.js';
import type { CatalogTool } from './schema.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

describe.each(testDialects())('public catalog on %s', (dialect) => {
  let t: TestContext;
  let alice: Session;
  let bob: Session;
  const tools: Record<string, ToolRecord> = {};

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
    alice = await developerSession(t.database, t.clock, t.app);
    bob = await developerSession(t.database, t.clock, t.app);
    const specs: Array<[string, Session, Record<string, unknown>, boolean]> = [
      ['lookup', alice, { name: 'crm_lookup', category: 'crm', description: 'Finds a CRM contact by email.' }, true],
      ['draft', alice, { name: 'secret_draft', category: 'crm', description: 'A draft nobody else may see.' }, false],
      ['invoice', bob, { name: 'send_invoice', category: 'finance', description: 'Sends an INVOICE by email.', endpoint: 'https://tools.example.net:8443/v1/invoice?key=s3cret', authType: 'hmac' }, true],
      ['slots', bob, { name: 'free_slots', category: 'scheduling', description: 'Lists 100% free slots.', parameters: [{ name: 'day', type: 'string', required: true }, { name: 'rooms', type: 'array', items: 'number' }] }, true],
    ];
    for (const [key, session, spec, publish] of specs) {
      t.clock.advance(1000);
      const tool = await createTool(t.app, session.auth, spec);
      tools[key] = publish ? await publishTool(t.app, session.auth, tool.id) : tool;
    }
  });
  afterAll(async () => t.close());

  const list = (query = '') => t.app.inject({ method: 'GET', url: `/api/catalog/tools${query}` });
  const one = (id: string) => t.app.inject({ method: 'GET', url: `/api/catalog/tools/${id}` });
  const names = (res: { json(): { data: { items: CatalogTool[] } } }) => res.json().data.items.map((tool) => tool.name);

  it('lists published tools of every developer, newest first, without authentication', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(['free_slots', 'send_invoice', 'crm_lookup']);
    expect(res.json().data.nextCursor).toBeNull();
  });

  it('shows the published definition, version, publish time and the developer name only', async () => {
    const res = await one(tools.slots!.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        id: tools.slots!.id,
        name: 'free_slots',
        description: 'Lists 100% free slots.',
        endpointHost: 'api.example.com',
        method: 'POST',
        authType: 'none',
        apiKeyHeader: null,
        category: 'scheduling',
        parameters: [
          { name: 'day', type: 'string', description: '', required: true },
          { name: 'rooms', type: 'array', description: '', required: false, items: 'number' },
        ],
        oauth: null,
        version: 1,
        publishedAt: tools.slots!.publishedAt,
        developer: { name: bob.developer.name },
      },
    });
  });

  it('never exposes emails, developer ids, the working copy state or the endpoint path and query', async () => {
    const res = await one(tools.invoice!.id);
    const text = res.body;
    expect(res.json().data.endpointHost).toBe('tools.example.net:8443');
    for (const secret of [bob.developer.email, alice.developer.email, bob.developer.id, 's3cret', '/v1/invoice', 'hasUnpublishedChanges', 'status']) {
      expect(text).not.toContain(secret);
    }
    const listing = (await list()).body;
    for (const secret of [alice.developer.email, bob.developer.email, alice.developer.id, bob.developer.id, 's3cret', 'secret_draft']) {
      expect(listing).not.toContain(secret);
    }
  });

  it('answers a draft with 404 TOOL_NOT_FOUND, exactly like a missing tool', async () => {
    const draft = await one(tools.draft!.id);
    const missing = await one('tool_00000000000000000000');
    expect(draft.statusCode).toBe(404);
    expect(draft.json()).toMatchObject({ success: false, code: 'TOOL_NOT_FOUND' });
    expect({ ...draft.json(), requestId: null }).toEqual({ ...missing.json(), requestId: null });
  });

  it('keeps showing the published revision while the working copy changes', async () => {
    await updateTool(t.app, alice.auth, tools.lookup!.id, { name: 'crm_search', description: 'Renamed in the working copy.' });
    const res = await one(tools.lookup!.id);
    expect(res.json().data).toMatchObject({ name: 'crm_lookup', description: 'Finds a CRM contact by email.', version: 1 });
    expect(names(await list('?q=search'))).toEqual([]);
    expect(names(await list('?q=lookup'))).toEqual(['crm_lookup']);
    await publishTool(t.app, alice.auth, tools.lookup!.id);
    expect((await one(tools.lookup!.id)).json().data).toMatchObject({ name: 'crm_search', version: 2 });
    await updateTool(t.app, alice.auth, tools.lookup!.id, { name: 'crm_lookup', description: 'Finds a CRM contact by email.' });
    await publishTool(t.app, alice.auth, tools.lookup!.id);
  });

  it.each([
    ['?category=crm', ['crm_lookup']],
    ['?category=finance', ['send_invoice']],
    ['?category=payments', []],
    ['?q=invoice', ['send_invoice']],
    ['?q=EMAIL', ['send_invoice', 'crm_lookup']],
    ['?q=100%25', ['free_slots']],
    ['?q=draft', []],
    ['?q=email&category=crm', ['crm_lookup']],
  ])('filters %s', async (query, expected) => {
    const res = await list(query);
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(expected);
  });

  it('pages with limit and cursor', async () => {
    const first = await list('?limit=2');
    expect(names(first)).toEqual(['free_slots', 'send_invoice']);
    const cursor = first.json().data.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const second = await list(`?limit=2&cursor=${cursor}`);
    expect(names(second)).toEqual(['crm_lookup']);
    expect(second.json().data.nextCursor).toBeNull();
  });

  it.each(['?category=games', '?limit=0', '?limit=500', '?cursor=%%%', '?status=draft', '?q='])('refuses %s with 400 VALIDATION_ERROR', async (query) => {
    const res = await list(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
  });

  it('drops a tool at once when it is unpublished, and brings it back when published again', async () => {
    const tool = await createTool(t.app, alice.auth, { name: 'come_and_go' });
    await publishTool(t.app, alice.auth, tool.id);
    expect((await one(tool.id)).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: alice.auth });
    expect((await one(tool.id)).statusCode).toBe(404);
    expect(names(await list('?limit=100'))).not.toContain('come_and_go');
    await publishTool(t.app, alice.auth, tool.id);
    expect((await one(tool.id)).statusCode).toBe(200);
  });

  it('drops a deleted tool at once', async () => {
    const tool = await createTool(t.app, bob.auth, { name: 'short_lived' });
    await publishTool(t.app, bob.auth, tool.id);
    await t.app.inject({ method: 'DELETE', url: `/api/dev/tools/${tool.id}`, headers: bob.auth });
    expect((await one(tool.id)).statusCode).toBe(404);
    expect(names(await list('?limit=100'))).not.toContain('short_lived');
  });

  it('ignores credentials: a developer sees their own draft only through the Developer API', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/catalog/tools/${tools.draft!.id}`, headers: alice.auth });
    expect(res.statusCode).toBe(404);
  });
});
