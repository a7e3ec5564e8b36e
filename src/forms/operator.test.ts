import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { archiveCustomField, createAgent, createCustomField, createForm, createPipeline, submit, uniqueSlug } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('Operator forms API on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => t.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: OrgWithKey | null, payload?: unknown) =>
    t.app.inject({ method, url, headers: who ? who.auth : {}, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const formCount = async () => Number((await t.database.db.selectFrom('forms').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const base = () => ({ slug: uniqueSlug(), title: 'Book a visit', consentText: 'I agree to be contacted.' });

  describe('create', () => {
    it('creates a form with defaults: active, consent version "1", the five fields', async () => {
      const res = await call('POST', '/api/org/forms', org, base());
      expect(res.statusCode).toBe(201);
      const form = res.json().data;
      expect(form.id).toMatch(/^frm_/);
      expect(form).toMatchObject({
        active: true,
        consentVersion: '1',
        successMessage: 'Thank you! We will be in touch soon.',
        redirectUrl: null,
        agentId: null,
        createOpportunity: false,
        pipelineId: null,
        stageId: null,
        customFields: [],
      });
      expect(Object.keys(form.fields).sort()).toEqual(['company', 'email', 'message', 'name', 'phone']);
      const history = await t.database.db.selectFrom('consent_versions').selectAll().where('form_id', '=', form.id).execute();
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ version: '1', text: 'I agree to be contacted.' });
    });

    it('takes every setting: fields, custom fields by key or id, brand, pipeline and stage, redirect', async () => {
      const budget = await createCustomField(t.app, org, { type: 'select', options: ['<1k', '1k+'] });
      const notes = await createCustomField(t.app, org, { entity: 'opportunity' });
      const agent = await createAgent(t.app, org);
      const pipeline = await createPipeline(t.app, org);
      const res = await call('POST', '/api/org/forms', org, {
        ...base(),
        active: false,
        fields: { phone: { enabled: true, required: true }, company: { enabled: true, required: false } },
        customFields: [{ key: budget.key, required: true }, { id: notes.id }],
        successMessage: 'Thanks!',
        redirectUrl: 'https://acme.example/thanks',
        agentId: agent.id,
        createOpportunity: true,
        pipelineId: pipeline.id,
        stageId: pipeline.stages[1]!.id,
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({
        active: false,
        fields: { phone: { enabled: true, required: true }, company: { enabled: true, required: false }, email: { enabled: true, required: false } },
        customFields: [
          { id: budget.id, key: budget.key, required: true, archived: false },
          { id: notes.id, key: notes.key, required: false, archived: false },
        ],
        successMessage: 'Thanks!',
        redirectUrl: 'https://acme.example/thanks',
        agentId: agent.id,
        createOpportunity: true,
        pipelineId: pipeline.id,
        stageId: pipeline.stages[1]!.id,
      });
    });

    it('a stage alone names its pipeline', async () => {
      const stage = org.defaultPipeline.stages[2]!;
      const res = await call('POST', '/api/org/forms', org, { ...base(), createOpportunity: true, stageId: stage.id });
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ pipelineId: org.defaultPipeline.id, stageId: stage.id });
    });

    it('refuses slugs that are not lowercase [a-z0-9-] of 3 to 64 characters', async () => {
      for (const slug of ['AB-form', 'ab', 'a'.repeat(65), 'with space', 'under_score', 'émoji', '../x']) {
        const res = await call('POST', '/api/org/forms', org, { ...base(), slug });
        expect(res.statusCode, slug).toBe(400);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'slug' });
      }
      expect((await call('POST', '/api/org/forms', org, { ...base(), slug: 'a'.repeat(64) })).statusCode).toBe(201);
      expect((await call('POST', '/api/org/forms', org, { ...base(), slug: '0-9' })).statusCode).toBe(201);
    });

    it('slugs are global: one taken by another organization is a 409 CONFLICT', async () => {
      const theirs = await createForm(t.app, other);
      const before = await formCount();
      const res = await call('POST', '/api/org/forms', org, { ...base(), slug: theirs.slug });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'CONFLICT', field: 'slug' });
      expect(await formCount()).toBe(before);
    });

    it('two creates racing for one slug: exactly one wins', async () => {
      const slug = uniqueSlug();
      const results = await Promise.all([1, 2, 3, 4].map(() => call('POST', '/api/org/forms', org, { ...base(), slug })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    });

    it('a required built-in field must be enabled, and a form must enable email or phone', async () => {
      const required = await call('POST', '/api/org/forms', org, { ...base(), fields: { company: { enabled: false, required: true } } });
      expect(required.statusCode).toBe(400);
      expect(required.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'fields.company' });
      const noIdentity = await call('POST', '/api/org/forms', org, { ...base(), fields: { email: { enabled: false, required: false }, phone: { enabled: false, required: false } } });
      expect(noIdentity.statusCode).toBe(400);
      expect(noIdentity.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'fields' });
      expect(noIdentity.json().error).toMatch(/email or phone/i);
      const unknownField = await call('POST', '/api/org/forms', org, { ...base(), fields: { fax: { enabled: true, required: false } } });
      expect(unknownField.statusCode).toBe(400);
    });

    it('custom fields must be active definitions of this organization', async () => {
      const archived = await createCustomField(t.app, org);
      await archiveCustomField(t.app, org, archived.id);
      const foreign = await createCustomField(t.app, other);
      const own = await createCustomField(t.app, org);
      const cases: [unknown, number, string][] = [
        [[{ key: archived.key }], 404, 'CUSTOM_FIELD_NOT_FOUND'],
        [[{ id: foreign.id }], 404, 'CUSTOM_FIELD_NOT_FOUND'],
        [[{ key: foreign.key }], 404, 'CUSTOM_FIELD_NOT_FOUND'],
        [[{ key: 'nope' }], 404, 'CUSTOM_FIELD_NOT_FOUND'],
        [[{ key: own.key, id: own.id }], 400, 'VALIDATION_ERROR'],
        [[{ required: true }], 400, 'VALIDATION_ERROR'],
        [[{ key: own.key }, { id: own.id }], 400, 'VALIDATION_ERROR'],
      ];
      const before = await formCount();
      for (const [customFields, status, code] of cases) {
        const res = await call('POST', '/api/org/forms', org, { ...base(), customFields });
        expect(res.statusCode, JSON.stringify(customFields)).toBe(status);
        expect(res.json()).toMatchObject({ code });
      }
      expect(await formCount()).toBe(before);
    });

    it('the brand must be an agent of this organization; pipeline and stage must exist in it', async () => {
      const theirAgent = await createAgent(t.app, other);
      const agent = await call('POST', '/api/org/forms', org, { ...base(), agentId: theirAgent.id });
      expect(agent.statusCode).toBe(404);
      expect(agent.json()).toMatchObject({ code: 'AGENT_NOT_FOUND', field: 'agentId' });
      const pipeline = await call('POST', '/api/org/forms', org, { ...base(), createOpportunity: true, pipelineId: other.defaultPipeline.id });
      expect(pipeline.statusCode).toBe(422);
      expect(pipeline.json()).toMatchObject({ code: 'PIPELINE_NOT_FOUND' });
      const stage = await call('POST', '/api/org/forms', org, { ...base(), createOpportunity: true, pipelineId: org.defaultPipeline.id, stageId: other.defaultPipeline.stages[0]!.id });
      expect(stage.statusCode).toBe(422);
      expect(stage.json()).toMatchObject({ code: 'STAGE_NOT_FOUND' });
    });

    it('redirectUrl is null or an http(s) URL', async () => {
      for (const redirectUrl of ['javascript:alert(1)', 'data:text/html,hi', 'ftp://example.com/x', '/relative', 'not a url']) {
        const res = await call('POST', '/api/org/forms', org, { ...base(), redirectUrl });
        expect(res.statusCode, redirectUrl).toBe(400);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'redirectUrl' });
      }
      const ok = await call('POST', '/api/org/forms', org, { ...base(), redirectUrl: 'http://acme.example/merci?x=1' });
      expect(ok.json().data.redirectUrl).toBe('http://acme.example/merci?x=1');
    });

    it('refuses malformed and wrongly typed bodies with a 4xx and writes nothing', async () => {
      const before = await formCount();
      const bad: [Record<string, string>, string, number][] = [
        [{ 'content-type': 'application/json' }, '{"slug": ', 400],
        [{ 'content-type': 'text/plain' }, 'slug=x', 415],
        [{ 'content-type': 'application/json' }, '[]', 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), title: 42 }), 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), active: 'yes' }), 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), orgId: other.orgId }), 400],
        [{ 'content-type': 'application/json' }, `{"slug":"${uniqueSlug()}","title":"x","consentText":"y","__proto__":{"admin":true}}`, 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), title: 'Nul\u0000byte' }), 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), title: '\ud800' }), 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), title: '   ' }), 400],
        [{ 'content-type': 'application/json' }, JSON.stringify({ ...base(), consentText: 'x'.repeat(300_000) }), 413],
      ];
      for (const [headers, payload, status] of bad) {
        const res = await t.app.inject({ method: 'POST', url: '/api/org/forms', headers: { ...org.auth, ...headers }, payload });
        expect(res.statusCode, payload.slice(0, 60)).toBe(status);
        expect(res.json().success).toBe(false);
        expect(res.json().error).toEqual(expect.any(String));
      }
      expect(await formCount()).toBe(before);
    });
  });

  describe('read', () => {
    it('lists only this organization\'s forms, newest first, in pages', async () => {
      const mine = await Promise.all([1, 2, 3].map(() => createForm(t.app, org)));
      const theirs = await createForm(t.app, other);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await call('GET', `/api/org/forms?limit=2${cursor ? `&cursor=${cursor}` : ''}`, org);
        expect(res.statusCode).toBe(200);
        const page = res.json().data;
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((item: { id: string }) => item.id));
        cursor = page.nextCursor;
      } while (cursor);
      for (const form of mine) expect(seen).toContain(form.id);
      expect(seen).not.toContain(theirs.id);
      expect(new Set(seen).size).toBe(seen.length);
      expect((await call('GET', '/api/org/forms?cursor=garbage', org)).statusCode).toBe(400);
      expect((await call('GET', '/api/org/forms?limit=101', org)).statusCode).toBe(400);
    });

    it('gets one form; another organization\'s id answers 404 FORM_NOT_FOUND on every route', async () => {
      const theirs = await createForm(t.app, other);
      expect((await call('GET', `/api/org/forms/${theirs.id}`, other)).statusCode).toBe(200);
      for (const [method, url, payload] of [
        ['GET', `/api/org/forms/${theirs.id}`, undefined],
        ['PATCH', `/api/org/forms/${theirs.id}`, { title: 'Mine now' }],
        ['DELETE', `/api/org/forms/${theirs.id}`, undefined],
        ['GET', `/api/org/forms/${theirs.id}/submissions`, undefined],
        ['GET', `/api/org/forms/${theirs.id}/embed`, undefined],
        ['GET', '/api/org/forms/frm_doesnotexist', undefined],
        ['GET', `/api/org/forms/${'x'.repeat(500)}`, undefined],
      ] as const) {
        const res = await call(method, url, org, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toMatchObject({ code: 'FORM_NOT_FOUND' });
      }
      const after = (await call('GET', `/api/org/forms/${theirs.id}`, other)).json().data;
      expect(after.title).toBe(theirs.title);
    });

    it('needs an organization API key', async () => {
      const form = await createForm(t.app, org);
      for (const headers of [{}, { authorization: 'Bearer svc_org_nope' }, { authorization: 'Basic abc' }]) {
        const res = await t.app.inject({ method: 'GET', url: `/api/org/forms/${form.id}`, headers });
        expect(res.statusCode).toBe(401);
      }
      const anonymousCreate = await t.app.inject({ method: 'POST', url: '/api/org/forms', payload: base() });
      expect(anonymousCreate.statusCode).toBe(401);
    });
  });

  describe('update', () => {
    it('changes only what is given, including active and single fields', async () => {
      const form = await createForm(t.app, org, { successMessage: 'Merci' });
      const res = await call('PATCH', `/api/org/forms/${form.id}`, org, { title: 'New title', active: false, fields: { company: { enabled: true, required: true } } });
      expect(res.statusCode).toBe(200);
      const updated = res.json().data;
      expect(updated).toMatchObject({ title: 'New title', active: false, successMessage: 'Merci', consentVersion: '1', slug: form.slug });
      expect(updated.fields.company).toEqual({ enabled: true, required: true });
      expect(updated.fields.email).toEqual(form.fields && (form.fields as Record<string, unknown>).email);
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(form.updatedAt as string));
    });

    it('a new consent text issues the next version and keeps every text; the same text keeps the version', async () => {
      const form = await createForm(t.app, org, { consentText: 'Version one.' });
      const same = await call('PATCH', `/api/org/forms/${form.id}`, org, { consentText: 'Version one.' });
      expect(same.json().data.consentVersion).toBe('1');
      const second = await call('PATCH', `/api/org/forms/${form.id}`, org, { consentText: 'Version two.' });
      expect(second.json().data).toMatchObject({ consentVersion: '2', consentText: 'Version two.' });
      const third = await call('PATCH', `/api/org/forms/${form.id}`, org, { consentText: 'Version one.' });
      expect(third.json().data.consentVersion).toBe('3');
      const history = await t.database.db.selectFrom('consent_versions').select(['version', 'text']).where('form_id', '=', form.id).orderBy('created_at').orderBy('version').execute();
      expect(history).toEqual([
        { version: '1', text: 'Version one.' },
        { version: '2', text: 'Version two.' },
        { version: '3', text: 'Version one.' },
      ]);
    });

    it('renaming to a taken slug is a 409; the rules of create apply', async () => {
      const a = await createForm(t.app, org);
      const b = await createForm(t.app, other);
      const taken = await call('PATCH', `/api/org/forms/${a.id}`, org, { slug: b.slug });
      expect(taken.statusCode).toBe(409);
      const renamed = await call('PATCH', `/api/org/forms/${a.id}`, org, { slug: `${a.slug}-2` });
      expect(renamed.json().data.slug).toBe(`${a.slug}-2`);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { fields: { email: { enabled: false, required: false }, phone: { enabled: false, required: false } } })).statusCode).toBe(400);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { redirectUrl: 'javascript:void(0)' })).statusCode).toBe(400);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { agentId: 'agt_missing' })).statusCode).toBe(404);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { pipelineId: other.defaultPipeline.id })).statusCode).toBe(422);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { unknown: 1 })).statusCode).toBe(400);
      expect((await call('PATCH', `/api/org/forms/${a.id}`, org, { redirectUrl: null, agentId: null })).statusCode).toBe(200);
    });

    it('shows an archived custom field as archived, and refuses adding one', async () => {
      const field = await createCustomField(t.app, org);
      const form = await createForm(t.app, org, { customFields: [{ key: field.key, required: true }] });
      await archiveCustomField(t.app, org, field.id);
      const read = (await call('GET', `/api/org/forms/${form.id}`, org)).json().data;
      expect(read.customFields).toEqual([{ id: field.id, key: field.key, required: true, archived: true }]);
      const readd = await call('PATCH', `/api/org/forms/${form.id}`, org, { customFields: [{ id: field.id }] });
      expect(readd.statusCode).toBe(404);
      const cleared = await call('PATCH', `/api/org/forms/${form.id}`, org, { customFields: [] });
      expect(cleared.json().data.customFields).toEqual([]);
    });

    it('turning opportunities off works even when their pipeline is gone', async () => {
      const pipeline = await createPipeline(t.app, org);
      const form = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id });
      await call('PATCH', `/api/org/forms/${form.id}`, org, { active: false });
      expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org)).statusCode).toBe(200);
      const off = await call('PATCH', `/api/org/forms/${form.id}`, org, { createOpportunity: false });
      expect(off.statusCode).toBe(200);
      const on = await call('PATCH', `/api/org/forms/${form.id}`, org, { createOpportunity: true });
      expect(on.statusCode).toBe(422);
      expect(on.json().code).toBe('PIPELINE_NOT_FOUND');
    });

    it('refuses to reactivate a form whose pipeline was deleted while it was off, and keeps it off', async () => {
      const pipeline = await createPipeline(t.app, org);
      const form = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id });
      await call('PATCH', `/api/org/forms/${form.id}`, org, { active: false });
      expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org)).statusCode).toBe(200);
      const on = await call('PATCH', `/api/org/forms/${form.id}`, org, { active: true });
      expect(on.statusCode).toBe(422);
      expect(on.json().code).toBe('PIPELINE_NOT_FOUND');
      expect((await call('GET', `/api/org/forms/${form.id}`, org)).json().data.active).toBe(false);
      expect((await t.app.inject({ method: 'GET', url: `/api/public/forms/${form.slug}` })).statusCode).toBe(404);
    });
  });

  describe('delete, submissions and embed', () => {
    it('deletes a form: gone from the API and the public endpoints, slug free again', async () => {
      const form = await createForm(t.app, org);
      const res = await call('DELETE', `/api/org/forms/${form.id}`, org);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({ id: form.id, deleted: true });
      expect((await call('GET', `/api/org/forms/${form.id}`, org)).statusCode).toBe(404);
      expect((await call('DELETE', `/api/org/forms/${form.id}`, org)).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: `/api/public/forms/${form.slug}` })).statusCode).toBe(404);
      expect((await call('POST', '/api/org/forms', other, { ...base(), slug: form.slug })).statusCode).toBe(201);
    });

    it('lists a form\'s submissions newest first with the consent text agreed to', async () => {
      const form = await createForm(t.app, org, { consentText: 'First text.' });
      for (const email of ['one@example.com', 'two@example.com', 'three@example.com']) {
        t.clock.advance(1000);
        expect((await submit(t.app, form.slug, { consentVersion: '1', email, metadata: { utm_source: 'ads' } })).statusCode).toBe(200);
      }
      await call('PATCH', `/api/org/forms/${form.id}`, org, { consentText: 'Second text.' });
      t.clock.advance(1000);
      expect((await submit(t.app, form.slug, { consentVersion: '2', email: 'four@example.com' }, { headers: { 'user-agent': 'Test/1.0' } })).statusCode).toBe(200);

      const first = (await call('GET', `/api/org/forms/${form.id}/submissions?limit=2`, org)).json().data;
      expect(first.items.map((s: { values: { email: string } }) => s.values.email)).toEqual(['four@example.com', 'three@example.com']);
      expect(first.items[0]).toMatchObject({ formId: form.id, consentVersion: '2', consentText: 'Second text.', userAgent: 'Test/1.0', metadata: {}, opportunityId: null });
      expect(first.items[0].contactId).toMatch(/^ct_/);
      expect(first.items[0].ip).toMatch(/^198\.18\./);
      expect(first.items[1]).toMatchObject({ consentVersion: '1', consentText: 'First text.', metadata: { utm_source: 'ads' } });
      const second = (await call('GET', `/api/org/forms/${form.id}/submissions?limit=2&cursor=${first.nextCursor}`, org)).json().data;
      expect(second.items.map((s: { values: { email: string } }) => s.values.email)).toEqual(['two@example.com', 'one@example.com']);
      expect(second.nextCursor).toBeNull();
    });

    it('gives the three embed snippets with the public base URL, escaped', async () => {
      const form = await createForm(t.app, org, { title: 'Say "hi" <script>alert(1)</script>' });
      const res = await call('GET', `/api/org/forms/${form.id}/embed`, org);
      expect(res.statusCode).toBe(200);
      const snippets = res.json().data;
      expect(snippets.directLink).toBe(`http://localhost:3000/f/${form.slug}`);
      expect(snippets.iframe).toContain(`src="http://localhost:3000/f/${form.slug}?embed=1"`);
      expect(snippets.iframe).toContain('title="Say &quot;hi&quot; &lt;script&gt;alert(1)&lt;/script&gt;"');
      expect(snippets.iframe).not.toContain('<script>');
      expect(snippets.script).toBe(`<div data-svc-form="${form.slug}"></div>\n<script async src="http://localhost:3000/form-embed.js"></script>`);
    });

    it('gives snippets a strict host CSP admits: no inline style or script, the iframe sized by attributes to fit the form', async () => {
      const off = { enabled: false, required: false };
      const on = { enabled: true, required: false };
      const small = await createForm(t.app, org, { fields: { name: off, email: on, phone: off, company: off, message: off } });
      const field = await createCustomField(t.app, org, { label: 'Notes', type: 'textarea' });
      const large = await createForm(t.app, org, {
        fields: { name: on, email: on, phone: on, company: on, message: on },
        customFields: [{ key: field.key }],
        consentText: 'I agree to be contacted about my request. '.repeat(6),
      });
      const heights: number[] = [];
      for (const form of [small, large]) {
        const snippets = (await call('GET', `/api/org/forms/${form.id}/embed`, org)).json().data as { directLink: string; iframe: string; script: string };
        for (const snippet of Object.values(snippets)) {
          expect(snippet).not.toMatch(/\sstyle\s*=/i);
          expect(snippet).not.toMatch(/<script(?![^>]*\ssrc=)/i);
          expect(snippet).not.toMatch(/\son[a-z]+\s*=/i);
        }
        expect(snippets.iframe).toMatch(/^<iframe src="[^"]+" title="[^"]*" width="100%" height="\d+" frameborder="0" loading="lazy"><\/iframe>$/);
        heights.push(Number(/height="(\d+)"/.exec(snippets.iframe)![1]));
      }
      // Two textareas, three more inputs and four more lines of consent text: taller by at least their height.
      expect(heights[1]! - heights[0]!).toBeGreaterThanOrEqual(2 * 156 + 3 * 88 + 3 * 24);
    });
  });
});
