import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey, orgsServiceOn } from '../../test/support/org-factories.js';

const brand = {
  name: 'Acme',
  primaryColor: '#1a73e8',
  backgroundColor: '#fff',
  textColor: '#202124',
  fontFamily: 'Inter, sans-serif',
  logoUrl: 'https://acme.example/logo.png',
};

describe.each(testDialects())('Operator API: agents on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock), createOrgWithKey(ctx.database, ctx.clock)]);
  });
  afterAll(async () => ctx.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: OrgWithKey | null, payload?: unknown) =>
    ctx.app.inject({ method, url, headers: who ? who.auth : {}, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const createAgent = async (who: OrgWithKey, name = 'Support bot') => (await call('POST', '/api/org/agents', who, { name, branding: brand })).json().data;

  it('creates an agent with its branding', async () => {
    const res = await call('POST', '/api/org/agents', org, { name: '  Sales bot ', branding: { ...brand, fontFamily: undefined } });
    expect(res.statusCode).toBe(201);
    const agent = res.json().data;
    expect(agent).toMatchObject({ name: 'Sales bot', branding: { ...brand, fontFamily: null } });
    expect(agent.id).toMatch(/^agt_/);
    expect((await call('GET', `/api/org/agents/${agent.id}`, org)).json().data).toEqual(agent);
  });

  it('lists agents newest first with keyset paging', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    for (const name of ['a', 'b', 'c']) {
      ctx.clock.advance(1000);
      await createAgent(fresh, name);
    }
    const page1 = (await call('GET', '/api/org/agents?limit=2', fresh)).json().data;
    expect(page1.items.map((a: { name: string }) => a.name)).toEqual(['c', 'b']);
    const page2 = (await call('GET', `/api/org/agents?limit=2&cursor=${page1.nextCursor}`, fresh)).json().data;
    expect(page2).toMatchObject({ items: [{ name: 'a' }], nextCursor: null });
  });

  it('updates only the fields given, branding field by field', async () => {
    const agent = await createAgent(org);
    ctx.clock.advance(1000);
    const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { branding: { primaryColor: '#000000', fontFamily: null } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Support bot', branding: { ...brand, primaryColor: '#000000', fontFamily: null } });
    expect(res.json().data.updatedAt > agent.updatedAt).toBe(true);
    const renamed = await call('PATCH', `/api/org/agents/${agent.id}`, org, { name: 'Helper' });
    expect(renamed.json().data.name).toBe('Helper');
  });

  it('deletes an agent', async () => {
    const agent = await createAgent(org);
    const res = await call('DELETE', `/api/org/agents/${agent.id}`, org);
    expect(res.json()).toEqual({ success: true, data: { id: agent.id, deleted: true } });
    const gone = await call('GET', `/api/org/agents/${agent.id}`, org);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('AGENT_NOT_FOUND');
  });

  it("answers 404 AGENT_NOT_FOUND for another org's agent and leaves it alone", async () => {
    const theirs = await createAgent(other);
    for (const [method, payload] of [['GET', undefined], ['PATCH', { name: 'mine now' }], ['DELETE', undefined]] as const) {
      const res = await call(method, `/api/org/agents/${theirs.id}`, org, payload);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('AGENT_NOT_FOUND');
    }
    expect((await call('GET', `/api/org/agents/${theirs.id}`, other)).json().data.name).toBe('Support bot');
    expect((await call('GET', '/api/org/agents', org)).json().data.items.map((a: { id: string }) => a.id)).not.toContain(theirs.id);
    expect((await call('GET', `/api/org/agents/${newId('agt')}`, org)).statusCode).toBe(404);
  });

  it('asks for credentials on every agent route', async () => {
    for (const [method, url] of [['GET', '/api/org/agents'], ['POST', '/api/org/agents'], ['GET', `/api/org/agents/${newId('agt')}`], ['PATCH', `/api/org/agents/${newId('agt')}`], ['DELETE', `/api/org/agents/${newId('agt')}`]] as const) {
      expect((await call(method, url, null)).statusCode).toBe(401);
    }
  });

  it.each([
    ['a missing branding', { name: 'x' }, 'branding'],
    ['a color that is not hex', { name: 'x', branding: { ...brand, primaryColor: 'blue' } }, 'branding.primaryColor'],
    ['a 4-digit hex color', { name: 'x', branding: { ...brand, textColor: '#abcd' } }, 'branding.textColor'],
    ['an http logo', { name: 'x', branding: { ...brand, logoUrl: 'http://acme.example/logo.png' } }, 'branding.logoUrl'],
    ['a javascript: logo', { name: 'x', branding: { ...brand, logoUrl: 'javascript:alert(1)' } }, 'branding.logoUrl'],
    ['a logo with credentials', { name: 'x', branding: { ...brand, logoUrl: 'https://u:p@acme.example/l.png' } }, 'branding.logoUrl'],
    ['a font that could break out of CSS', { name: 'x', branding: { ...brand, fontFamily: 'Inter; } body { display:none' } }, 'branding.fontFamily'],
    ['a blank name', { name: '  ', branding: brand }, 'name'],
    ['a wrongly typed name', { name: 7, branding: brand }, 'name'],
    ['an unknown field', { name: 'x', branding: brand, color: 'red' }, 'color'],
    ['an unknown branding field', { name: 'x', branding: { ...brand, css: 'x' } }, 'branding.css'],
  ])('refuses %s with VALIDATION_ERROR', async (_what, body, field) => {
    const before = (await call('GET', '/api/org/agents?limit=100', org)).json().data.items.length;
    const res = await call('POST', '/api/org/agents', org, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(res.json())).toContain(field);
    expect((await call('GET', '/api/org/agents?limit=100', org)).json().data.items.length).toBe(before);
  });

  it('refuses an empty or invalid update and changes nothing', async () => {
    const agent = await createAgent(org);
    expect((await call('PATCH', `/api/org/agents/${agent.id}`, org, {})).statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/agents/${agent.id}`, org, { branding: { backgroundColor: 'red' } })).statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/agents/${agent.id}`, org, { branding: { logoUrl: 'ftp://x.example/l.png' } })).statusCode).toBe(400);
    expect((await call('GET', `/api/org/agents/${agent.id}`, org)).json().data).toEqual(agent);
  });

  it('refuses oversized and non-JSON bodies', async () => {
    const big = await call('POST', '/api/org/agents', org, { name: 'x', branding: { ...brand, name: 'y'.repeat(70 * 1024) } });
    expect(big.statusCode).toBe(413);
    const text = await ctx.app.inject({ method: 'POST', url: '/api/org/agents', headers: { ...org.auth, 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(415);
  });

  // What public forms show (the orgs service's answer to the forms feature).
  it("returns an agent's branding, or null for none, a missing or a foreign agent", async () => {
    const orgs = orgsServiceOn(ctx.database, ctx.clock);
    const now = ctx.clock.now().toISOString();
    const agent = { id: newId('agt'), org_id: org.orgId, name: 'Bot', brand_name: 'Acme', primary_color: '#123456', background_color: '#fff', text_color: '#000', font_family: null, logo_url: 'https://acme.example/logo.png', created_at: now, updated_at: now, chat_enabled: 0, chat_allowed_origins: '[]', chat_welcome_message: '', handoff_enabled: 0, handoff_wait_seconds: 300 };
    await ctx.database.db.insertInto('agents').values(agent).execute();
    expect(await orgs.agentBranding(org.orgId, agent.id)).toEqual({
      name: 'Acme', primaryColor: '#123456', backgroundColor: '#fff', textColor: '#000', fontFamily: null, logoUrl: 'https://acme.example/logo.png',
    });
    expect(await orgs.agentBranding(org.orgId, null)).toBeNull();
    expect(await orgs.agentBranding(other.orgId, agent.id)).toBeNull();
    expect(await orgs.agentBranding(org.orgId, newId('agt'))).toBeNull();
  });
});
