import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession, getAccessToken } from '../../test/support/factories.js';
import { createTool, fixedResolver, publishTool, TEST_DNS, updateTool } from '../../test/support/tools-factories.js';
import { createToolsRepo } from './repo.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

describe.each(testDialects())('publishing tools on %s', (dialect) => {
  let t: TestContext;
  let dev: Session;
  let writeOnly: Record<string, string>;
  let readOnly: Record<string, string>;
  // DNS the tests can change between saving and publishing.
  const dns: Record<string, string[]> = { ...TEST_DNS, 'moving.example.com': ['93.184.215.14'] };

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver(dns) } });
    dev = await developerSession(t.database, t.clock, t.app);
    writeOnly = { authorization: `Bearer ${await getAccessToken(t.app, dev.app, 'tools:read tools:write')}` };
    readOnly = { authorization: `Bearer ${await getAccessToken(t.app, dev.app, 'tools:read')}` };
  });
  afterAll(async () => t.close());

  const action = (id: string, verb: 'publish' | 'unpublish', headers: Record<string, string> = dev.auth) =>
    t.app.inject({ method: 'POST', url: `/api/dev/tools/${id}/${verb}`, headers });
  const get = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/dev/tools/${id}`, headers: dev.auth })).json().data;
  const catalogItem = (id: string) => t.app.inject({ method: 'GET', url: `/api/catalog/tools/${id}` });
  const revisions = (id: string) =>
    t.database.db.selectFrom('tool_revisions').selectAll().where('tool_id', '=', id).orderBy('version').execute();

  it('publishes a draft as revision 1', async () => {
    const tool = await createTool(t.app, dev.auth);
    t.clock.advance(60_000);
    const res = await action(tool.id, 'publish');
    expect(res.statusCode).toBe(200);
    const now = t.clock.now().toISOString();
    expect(res.json()).toEqual({ success: true, data: { ...tool, status: 'published', version: 1, hasUnpublishedChanges: false, publishedAt: now, updatedAt: now } });
    expect(await get(tool.id)).toEqual(res.json().data);
    const [revision] = await revisions(tool.id);
    expect(revision).toMatchObject({ version: 1, name: tool.name, description: tool.description, endpoint: tool.endpoint, method: 'POST', auth_type: 'none', category: 'other' });
    expect(JSON.parse(revision!.parameters)).toEqual(tool.parameters);
    expect((await catalogItem(tool.id)).statusCode).toBe(200);
  });

  it('keeps published revisions immutable: edits stay in the working copy until the next publish', async () => {
    const tool = await createTool(t.app, dev.auth, { description: 'Version one.' });
    await publishTool(t.app, dev.auth, tool.id);

    const edited = await updateTool(t.app, dev.auth, tool.id, { description: 'Version two.', category: 'sales' });
    expect(edited).toMatchObject({ status: 'published', version: 1, hasUnpublishedChanges: true, description: 'Version two.' });
    expect((await catalogItem(tool.id)).json().data).toMatchObject({ version: 1, description: 'Version one.', category: 'other' });

    t.clock.advance(1000);
    const republished = await publishTool(t.app, dev.auth, tool.id);
    expect(republished).toMatchObject({ version: 2, hasUnpublishedChanges: false, publishedAt: t.clock.now().toISOString() });
    expect((await catalogItem(tool.id)).json().data).toMatchObject({ version: 2, description: 'Version two.', category: 'sales' });

    const stored = await revisions(tool.id);
    expect(stored.map((r) => [r.version, r.description, r.category])).toEqual([
      [1, 'Version one.', 'other'],
      [2, 'Version two.', 'sales'],
    ]);
  });

  it('clears hasUnpublishedChanges when the working copy is edited back to the published revision', async () => {
    const tool = await createTool(t.app, dev.auth);
    await publishTool(t.app, dev.auth, tool.id);
    expect((await updateTool(t.app, dev.auth, tool.id, { method: 'GET' })).hasUnpublishedChanges).toBe(true);
    expect((await updateTool(t.app, dev.auth, tool.id, { method: 'POST' })).hasUnpublishedChanges).toBe(false);
  });

  it('never marks a never-published draft as having unpublished changes', async () => {
    const tool = await createTool(t.app, dev.auth);
    expect((await updateTool(t.app, dev.auth, tool.id, { description: 'Edited draft.' })).hasUnpublishedChanges).toBe(false);
  });

  it('treats publishing an unchanged published tool as a no-op: 200, same version, no new revision', async () => {
    const tool = await createTool(t.app, dev.auth);
    const first = await publishTool(t.app, dev.auth, tool.id);
    t.clock.advance(1000);
    const again = await action(tool.id, 'publish');
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(first);
    expect(await revisions(tool.id)).toHaveLength(1);
  });

  it('withdraws a tool with unpublish, keeps its revisions, and publishes it again', async () => {
    const tool = await createTool(t.app, dev.auth);
    const published = await publishTool(t.app, dev.auth, tool.id);
    t.clock.advance(1000);

    const res = await action(tool.id, 'unpublish');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ ...published, status: 'draft', updatedAt: t.clock.now().toISOString() });
    expect((await catalogItem(tool.id)).statusCode).toBe(404);
    expect(await revisions(tool.id)).toHaveLength(1);

    const twice = await action(tool.id, 'unpublish');
    expect(twice.statusCode).toBe(200);
    expect(twice.json().data.status).toBe('draft');

    t.clock.advance(1000);
    const back = await publishTool(t.app, dev.auth, tool.id);
    expect(back).toMatchObject({ status: 'published', version: 1, publishedAt: t.clock.now().toISOString() });
    expect(await revisions(tool.id)).toHaveLength(1);
    expect((await catalogItem(tool.id)).json().data.version).toBe(1);

    await action(tool.id, 'unpublish');
    await updateTool(t.app, dev.auth, tool.id, { description: 'Changed while withdrawn.' });
    const next = await publishTool(t.app, dev.auth, tool.id);
    expect(next).toMatchObject({ version: 2, description: 'Changed while withdrawn.' });
  });

  it('unpublishes a draft that was never published as a no-op', async () => {
    const tool = await createTool(t.app, dev.auth);
    const res = await action(tool.id, 'unpublish');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(tool);
  });

  describe('endpoint checks at publish time', () => {
    it('refuses a name that does not resolve, and leaves the tool a draft', async () => {
      const tool = await createTool(t.app, dev.auth, { endpoint: 'https://not-deployed.example.org/quote' });
      const res = await action(tool.id, 'publish');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'endpoint' });
      expect(res.json().error).toContain('not-deployed.example.org does not resolve');
      expect(await get(tool.id)).toEqual(tool);
      expect(await revisions(tool.id)).toEqual([]);
    });

    it('re-checks DNS: a name that moved to a private address cannot be published', async () => {
      dns['moving.example.com'] = ['93.184.215.14'];
      const tool = await createTool(t.app, dev.auth, { endpoint: 'https://moving.example.com/quote' });
      dns['moving.example.com'] = ['93.184.215.14', '10.1.2.3'];
      const res = await action(tool.id, 'publish');
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain('resolves to 10.1.2.3, a private address');
      expect((await get(tool.id)).status).toBe('draft');
    });

    it('keeps the live revision when a republish is refused', async () => {
      dns['moving.example.com'] = ['93.184.215.14'];
      const tool = await createTool(t.app, dev.auth, { endpoint: 'https://moving.example.com/quote' });
      await publishTool(t.app, dev.auth, tool.id);
      await updateTool(t.app, dev.auth, tool.id, { description: 'Pending change.' });
      dns['moving.example.com'] = ['fd00::5'];
      const res = await action(tool.id, 'publish');
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain('fd00::5, a unique-local (private) IPv6 address');
      expect(await get(tool.id)).toMatchObject({ status: 'published', version: 1, hasUnpublishedChanges: true });
      expect((await catalogItem(tool.id)).json().data.description).toBe(tool.description);
    });
  });

  describe('security', () => {
    it('needs tools:publish for publish and unpublish', async () => {
      const tool = await createTool(t.app, dev.auth);
      for (const verb of ['publish', 'unpublish'] as const) {
        for (const headers of [writeOnly, readOnly]) {
          const res = await action(tool.id, verb, headers);
          expect(res.statusCode).toBe(403);
          expect(res.json().code).toBe('INSUFFICIENT_SCOPE');
          expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard", error="insufficient_scope", scope="tools:publish"');
        }
        const anonymous = await action(tool.id, verb, {});
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json().code).toBe('UNAUTHORIZED');
      }
      expect(await get(tool.id)).toEqual(tool);
    });

    it('answers an unknown tool with 404 TOOL_NOT_FOUND', async () => {
      for (const verb of ['publish', 'unpublish'] as const) {
        const res = await action('tool_missing0000000000000', verb);
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe('TOOL_NOT_FOUND');
      }
    });

    it('accepts a Content-Type: application/json header without a body, and ignores a body', async () => {
      const tool = await createTool(t.app, dev.auth);
      const res = await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/publish`, headers: { ...dev.auth, 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(200);
      const withBody = await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: dev.auth, payload: { status: 'published' } });
      expect(withBody.statusCode).toBe(200);
      expect(withBody.json().data.status).toBe('draft');
    });
  });

  it('writes nothing when the working copy changed after it was checked', async () => {
    const tool = await createTool(t.app, dev.auth);
    const repo = createToolsRepo(t.database.db);
    const row = (await repo.findTool(dev.developer.id, tool.id))!;
    await updateTool(t.app, dev.auth, tool.id, { description: 'Changed concurrently.' });
    const revision = { ...row, id: 'rev_concurrent000000000', tool_id: tool.id, version: 1, created_at: row.created_at };
    const { developer_id: _d, status: _s, published_revision_id: _p, has_unpublished_changes: _h, updated_at: _u, published_at: _a, oauth_client_secret: _c, oauth_secret_key_id: _k, ...revisionRow } = revision;
    const expected = { name: row.name, description: row.description, endpoint: row.endpoint, method: row.method, auth_type: row.auth_type, api_key_header: row.api_key_header, category: row.category, parameters: row.parameters, oauth: row.oauth, version: 0 };
    const written = await repo.publish(dev.developer.id, tool.id, expected, { status: 'published', version: 1 }, revisionRow);
    expect(written).toBe(false);
    expect(await revisions(tool.id)).toEqual([]);
    expect((await get(tool.id)).status).toBe('draft');
  });
});

describe.each(testDialects())('publishing with TOOL_ALLOW_PRIVATE_ENDPOINTS=1 on %s', (dialect) => {
  let t: TestContext;
  let dev: Session;
  beforeAll(async () => {
    t = await createTestContext(dialect, { env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' }, deps: { resolveHost: fixedResolver({}) } });
    dev = await developerSession(t.database, t.clock, t.app);
  });
  afterAll(async () => t.close());

  it('accepts local endpoints for development, but still only over https', async () => {
    const tool = await createTool(t.app, dev.auth, { endpoint: 'https://127.0.0.1:8443/quote' });
    expect((await publishTool(t.app, dev.auth, tool.id)).status).toBe('published');
    const local = await createTool(t.app, dev.auth, { endpoint: 'https://localhost:8443/quote' });
    expect((await publishTool(t.app, dev.auth, local.id)).status).toBe('published');
    const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: { name: 'plain', description: 'x', endpoint: 'http://127.0.0.1:8080/quote' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ENDPOINT_NOT_ALLOWED');
  });
});
