import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { archiveCustomField, createAgent, createCustomField, createForm, getConfig, nextClientIp, submit } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

/** The spec's key sets, exactly (Resources → Form (public configuration)). */
const CONFIG_KEYS = ['branding', 'consentText', 'consentVersion', 'customFields', 'fields', 'redirectUrl', 'slug', 'successMessage', 'title'];
const FIELD_KEYS = ['company', 'email', 'message', 'name', 'phone'];
const CUSTOM_FIELD_KEYS = ['entity', 'key', 'label', 'options', 'required', 'type'];
const BRANDING_KEYS = ['backgroundColor', 'fontFamily', 'logoUrl', 'name', 'primaryColor', 'textColor'];
const ID_PATTERN = /\b(org|frm|agt|cf|pipe|stg|usr|key|ct|opp|sub|cv)_[0-9A-Za-z]{8,}/;

/** Every string and key anywhere in a JSON value, with its path. */
function walk(value: unknown, path: string, visit: (path: string, key: string | undefined, value: unknown) => void): void {
  visit(path, undefined, value);
  if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`, visit));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      visit(`${path}.${key}`, key, child);
      walk(child, `${path}.${key}`, visit);
    }
  }
}

describe.each(testDialects())('public form config on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const patch = (id: string, payload: unknown) => t.app.inject({ method: 'PATCH', url: `/api/org/forms/${id}`, headers: org.auth, payload: payload as object });

  it('answers the spec\'s envelope with exactly the spec\'s fields, and no internal id anywhere', async () => {
    const size = await createCustomField(t.app, org, { key: 'team_size', label: 'Team size', type: 'select', options: ['1-10', '11-50'] });
    const deal = await createCustomField(t.app, org, { key: 'deal_notes', entity: 'opportunity', label: 'Deal notes', type: 'textarea' });
    const agent = await createAgent(t.app, org);
    const form = await createForm(t.app, org, {
      title: 'Request a demo',
      redirectUrl: 'https://acme.example/thanks',
      agentId: agent.id,
      createOpportunity: true,
      pipelineId: org.defaultPipeline.id,
      stageId: org.defaultPipeline.stages[1]!.id,
      customFields: [{ key: size.key, required: true }, { id: deal.id }],
    });
    const res = await getConfig(t.app, form.slug);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
    expect(body.success).toBe(true);
    const data = body.data;
    expect(Object.keys(data).sort()).toEqual(CONFIG_KEYS);
    expect(Object.keys(data.fields).sort()).toEqual(FIELD_KEYS);
    for (const name of FIELD_KEYS) expect(Object.keys(data.fields[name]).sort()).toEqual(['enabled', 'required']);
    for (const field of data.customFields) expect(Object.keys(field).sort()).toEqual(CUSTOM_FIELD_KEYS);
    expect(Object.keys(data.branding).sort()).toEqual(BRANDING_KEYS);
    expect(data).toMatchObject({
      slug: form.slug,
      title: 'Request a demo',
      consentText: form.consentText,
      consentVersion: '1',
      redirectUrl: 'https://acme.example/thanks',
      customFields: [
        { key: 'team_size', entity: 'contact', required: true, label: 'Team size', type: 'select', options: ['1-10', '11-50'] },
        { key: 'deal_notes', entity: 'opportunity', required: false, label: 'Deal notes', type: 'textarea', options: [] },
      ],
      branding: { name: 'Acme Dental', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', fontFamily: 'Inter, sans-serif', logoUrl: 'https://acme.example/logo.png' },
    });

    const internal = [org.orgId, form.id, agent.id, size.id, deal.id, org.defaultPipeline.id, org.defaultPipeline.stages[1]!.id];
    walk(body, '$', (path, key, value) => {
      if (key !== undefined) expect(key, path).not.toMatch(/(^id$|Id$|^org)/);
      if (typeof value === 'string') {
        expect(value, path).not.toMatch(ID_PATTERN);
        for (const id of internal) expect(value, path).not.toContain(id);
      }
    });
    expect(res.body).not.toMatch(ID_PATTERN);
  });

  it('branding is null without an agent, and when the agent is gone', async () => {
    const plain = await createForm(t.app, org);
    expect((await getConfig(t.app, plain.slug)).json().data.branding).toBeNull();
    const agent = await createAgent(t.app, org, { fontFamily: null });
    const branded = await createForm(t.app, org, { agentId: agent.id });
    expect((await getConfig(t.app, branded.slug)).json().data.branding).toMatchObject({ name: 'Acme Dental', fontFamily: null });
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/org/agents/${agent.id}`, headers: org.auth });
    expect(removed.statusCode).toBe(200);
    expect((await getConfig(t.app, branded.slug)).json().data.branding).toBeNull();
  });

  it('omits archived custom fields at once: the change reaches the cache', async () => {
    const kept = await createCustomField(t.app, org, { label: 'Kept' });
    const archived = await createCustomField(t.app, org, { label: 'Archived soon' });
    const form = await createForm(t.app, org, { customFields: [{ key: kept.key }, { key: archived.key, required: true }] });
    expect((await getConfig(t.app, form.slug)).json().data.customFields.map((f: { key: string }) => f.key)).toEqual([kept.key, archived.key]);
    await archiveCustomField(t.app, org, archived.id);
    expect((await getConfig(t.app, form.slug)).json().data.customFields.map((f: { key: string }) => f.key)).toEqual([kept.key]);
    // A required field that is gone is not required any more.
    const res = await submit(t.app, form.slug, { consentVersion: '1', email: 'archived@example.com' });
    expect(res.statusCode).toBe(200);
  });

  it('a brand change reaches the cache at once', async () => {
    const agent = await createAgent(t.app, org);
    const form = await createForm(t.app, org, { agentId: agent.id });
    expect((await getConfig(t.app, form.slug)).json().data.branding.name).toBe('Acme Dental');
    const res = await t.app.inject({ method: 'PATCH', url: `/api/org/agents/${agent.id}`, headers: org.auth, payload: { branding: { name: 'Acme Smiles' } } });
    expect(res.statusCode).toBe(200);
    expect((await getConfig(t.app, form.slug)).json().data.branding.name).toBe('Acme Smiles');
  });

  it('serves operator edits at once: the cache is invalidated by every change', async () => {
    const form = await createForm(t.app, org, { title: 'Before' });
    const before = await getConfig(t.app, form.slug);
    expect(before.json().data.title).toBe('Before');
    await patch(form.id, { title: 'After', consentText: 'New consent.', fields: { company: { enabled: true, required: true } } });
    const after = (await getConfig(t.app, form.slug)).json().data;
    expect(after).toMatchObject({ title: 'After', consentText: 'New consent.', consentVersion: '2', fields: { company: { enabled: true, required: true } } });
    await patch(form.id, { slug: `${form.slug}-v2` });
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(404);
    expect((await getConfig(t.app, `${form.slug}-v2`)).statusCode).toBe(200);
  });

  it('an inactive, deleted or unknown form is 404 FORM_NOT_FOUND on both public endpoints', async () => {
    const form = await createForm(t.app, org, { active: false });
    const deleted = await createForm(t.app, org);
    await t.app.inject({ method: 'DELETE', url: `/api/org/forms/${deleted.id}`, headers: org.auth });
    for (const slug of [form.slug, deleted.slug, 'no-such-form', 'UPPER', 'x'.repeat(300)]) {
      const config = await getConfig(t.app, slug);
      expect(config.statusCode, slug).toBe(404);
      expect(config.json()).toMatchObject({ success: false, code: 'FORM_NOT_FOUND' });
      const submitted = await submit(t.app, slug, { consentVersion: '1', email: 'x@example.com' });
      expect(submitted.statusCode, slug).toBe(404);
      expect(submitted.json()).toMatchObject({ code: 'FORM_NOT_FOUND' });
    }
    await patch(form.id, { active: true });
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
    await patch(form.id, { active: false });
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(404);
  });

  it('answers 304 Not Modified to If-None-Match with the current ETag, and 200 after a change', async () => {
    const form = await createForm(t.app, org);
    const first = await getConfig(t.app, form.slug);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await getConfig(t.app, form.slug, { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await getConfig(t.app, form.slug, { headers: { 'if-none-match': `W/${etag}` } })).statusCode).toBe(304);
    expect((await getConfig(t.app, form.slug, { headers: { 'if-none-match': `"other", ${etag}` } })).statusCode).toBe(304);
    expect((await getConfig(t.app, form.slug, { headers: { 'if-none-match': '"stale"' } })).statusCode).toBe(200);
    await patch(form.id, { title: 'Changed' });
    const changed = await getConfig(t.app, form.slug, { headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('CORS: open to every origin without credentials, on success and on errors; preflight answered', async () => {
    const form = await createForm(t.app, org);
    const origin = { origin: 'https://someone-else.example' };
    const responses = [
      await getConfig(t.app, form.slug, { headers: origin }),
      await getConfig(t.app, 'missing-form', { headers: origin }),
      await submit(t.app, form.slug, { consentVersion: '1', email: 'cors@example.com' }, { headers: origin }),
      await submit(t.app, form.slug, { consentVersion: 'old' }, { headers: origin }),
    ];
    for (const res of responses) {
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-expose-headers']).toContain('RateLimit-Remaining');
    }
    for (const url of [`/api/public/forms/${form.slug}`, `/api/public/forms/${form.slug}/submit`]) {
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, idempotency-key' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      expect(preflight.headers['access-control-allow-methods']).toContain('GET');
      expect((preflight.headers['access-control-allow-headers'] as string).toLowerCase()).toContain('content-type');
      expect((preflight.headers['access-control-allow-headers'] as string).toLowerCase()).toContain('idempotency-key');
      expect(Number(preflight.headers['access-control-max-age'])).toBeGreaterThanOrEqual(3600);
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('CORS: a preflight without Origin is answered too; other APIs get no CORS headers and no preflight', async () => {
    const form = await createForm(t.app, org);
    const bare = await t.app.inject({ method: 'OPTIONS', url: `/api/public/forms/${form.slug}` });
    expect(bare.statusCode).toBe(204);
    expect(bare.headers['access-control-allow-origin']).toBe('*');
    const origin = { origin: 'https://someone-else.example' };
    const operator = await t.app.inject({ method: 'GET', url: '/api/org/forms', headers: { ...origin, ...org.auth } });
    expect(operator.statusCode).toBe(200);
    expect(operator.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/org/forms', headers: { ...origin, 'access-control-request-method': 'POST' } });
    expect(preflight.statusCode).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('limits config reads to 60 a minute per client IP and slug, with RateLimit headers', async () => {
    const form = await createForm(t.app, org);
    const ip = nextClientIp();
    const first = await getConfig(t.app, form.slug, { ip });
    expect(first.headers['ratelimit-limit']).toBe('60');
    expect(first.headers['ratelimit-remaining']).toBe('59');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    for (let i = 2; i <= 60; i++) expect((await getConfig(t.app, form.slug, { ip })).statusCode).toBe(200);
    const limited = await getConfig(t.app, form.slug, { ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    // Another IP, or the same IP on another form, has its own budget.
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
    const another = await createForm(t.app, org);
    expect((await getConfig(t.app, another.slug, { ip })).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await getConfig(t.app, form.slug, { ip })).statusCode).toBe(200);
  });
});
