import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { countWrites, createCustomField, createForm, createPipeline, getConfig, nextClientIp, submit, type FormRecordJson } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { MAX_JSON_DEPTH } from '../lib/json.js';

describe.each(testDialects())('POST /api/public/forms/{slug}/submit on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const patch = (id: string, payload: unknown) => t.app.inject({ method: 'PATCH', url: `/api/org/forms/${id}`, headers: org.auth, payload: payload as object });
  const writes = () => countWrites(t.database, org.orgId);
  /** Deletes a pipeline and its stages directly, as a concurrent delete could leave things. */
  const deletePipelineBehindTheApisBack = async (pipelineId: string) => {
    await t.database.db.deleteFrom('stages').where('pipeline_id', '=', pipelineId).execute();
    await t.database.db.deleteFrom('pipelines').where('id', '=', pipelineId).execute();
  };
  const contactByEmail = (email: string) => t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('email', '=', email).executeTakeFirst();
  const submissionsOf = (formId: string) => t.database.db.selectFrom('submissions').selectAll().where('form_id', '=', formId).orderBy('created_at').execute();

  /** Expects a refusal with this status and code that wrote nothing at all. */
  async function expectRefused(slug: string, payload: unknown, status: number, code: string, field?: string, headers: Record<string, string> = {}) {
    const before = await writes();
    const res = await submit(t.app, slug, payload, { headers });
    expect(res.statusCode, `${JSON.stringify(payload).slice(0, 80)} → ${res.body}`).toBe(status);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code });
    expect(body.error).toEqual(expect.any(String));
    expect(body.error.length).toBeGreaterThan(10);
    if (field !== undefined) expect(body.field).toBe(field);
    expect(await writes()).toEqual(before);
    return body;
  }

  describe('a valid submission', () => {
    let form: FormRecordJson;
    let budget: { key: string };
    let dealSize: { key: string };

    beforeAll(async () => {
      budget = await createCustomField(t.app, org, { key: 'budget', type: 'select', options: ['small', 'large'] });
      dealSize = await createCustomField(t.app, org, { key: 'deal_size', entity: 'opportunity', type: 'number' });
      form = await createForm(t.app, org, {
        fields: { company: { enabled: true, required: false } },
        customFields: [{ key: budget.key }, { key: dealSize.key }],
        createOpportunity: true,
        redirectUrl: 'https://acme.example/thanks',
        successMessage: 'We will call you.',
      });
    });

    it('creates the contact (source form), a note, an opportunity and the submission; answers the spec\'s data', async () => {
      const ip = nextClientIp();
      const res = await submit(
        t.app,
        form.slug,
        {
          consentVersion: '1',
          name: '  Ada Lovelace ',
          email: ' Ada@Example.COM ',
          phone: '+1 415 555 2671',
          company: 'Analytical Engines',
          message: 'Please call me after 5pm.',
          custom: { budget: 'large', deal_size: 12000, unknown_key: 'dropped' },
          metadata: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring', utm_term: 'crm', utm_content: 'hero', gclid: 'dropped', ref: 'dropped' },
          surplus: 'ignored too',
        },
        { ip, headers: { 'user-agent': 'Mozilla/5.0 Test' } },
      );
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { ok: true, successMessage: 'We will call you.', redirectUrl: 'https://acme.example/thanks' } });
      expect(res.headers['cache-control']).toBe('no-store');

      const contact = await contactByEmail('ada@example.com');
      expect(contact).toMatchObject({ name: 'Ada Lovelace', phone: '+14155552671', company: 'Analytical Engines', source: 'form' });
      expect(JSON.parse(contact!.custom)).toEqual({ budget: 'large' });
      const notes = await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contact!.id).execute();
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ body: 'Please call me after 5pm.', source: 'form' });
      const opportunities = await t.database.db.selectFrom('opportunities').selectAll().where('contact_id', '=', contact!.id).execute();
      expect(opportunities).toHaveLength(1);
      expect(opportunities[0]).toMatchObject({ pipeline_id: org.defaultPipeline.id, stage_id: org.defaultPipeline.stages[0]!.id, source: 'form' });
      expect(JSON.parse(opportunities[0]!.custom)).toEqual({ deal_size: 12000 });

      const [submission] = await submissionsOf(form.id);
      expect(submission).toMatchObject({ contact_id: contact!.id, opportunity_id: opportunities[0]!.id, consent_version: '1', ip, user_agent: 'Mozilla/5.0 Test' });
      expect(notes[0]!.submission_id).toBe(submission!.id);
      expect(opportunities[0]!.submission_id).toBe(submission!.id);
      expect(JSON.parse(submission!.field_values)).toEqual({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        phone: '+14155552671',
        company: 'Analytical Engines',
        message: 'Please call me after 5pm.',
      });
      expect(JSON.parse(submission!.custom)).toEqual({ budget: 'large', deal_size: 12000 });
      expect(JSON.parse(submission!.metadata)).toEqual({ utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring', utm_term: 'crm', utm_content: 'hero' });
    });

    it('writes the same rows whichever way it goes: one statement (a new person, PostgreSQL) or the transaction (with an Idempotency-Key)', async () => {
      const payload = (email: string) => ({ consentVersion: '1', name: 'Twin', email, message: 'Same words.', custom: { budget: 'large', deal_size: 5 }, metadata: { utm_source: 'x' } });
      expect((await submit(t.app, form.slug, payload('twin-a@example.com'), { headers: { 'user-agent': 'UA' } })).statusCode).toBe(200);
      expect((await submit(t.app, form.slug, payload('twin-b@example.com'), { headers: { 'user-agent': 'UA', 'idempotency-key': 'twin-b-1' } })).statusCode).toBe(200);
      const shapeOf = async (email: string) => {
        const contact = (await contactByEmail(email))!;
        const notes = await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contact.id).execute();
        const opportunities = await t.database.db.selectFrom('opportunities').selectAll().where('contact_id', '=', contact.id).execute();
        const submissions = await t.database.db.selectFrom('submissions').selectAll().where('contact_id', '=', contact.id).execute();
        expect([notes.length, opportunities.length, submissions.length]).toEqual([1, 1, 1]);
        expect(notes[0]!.submission_id).toBe(submissions[0]!.id);
        expect(opportunities[0]!.submission_id).toBe(submissions[0]!.id);
        expect(submissions[0]!.opportunity_id).toBe(opportunities[0]!.id);
        // Each id begins with its record's creation time (lib/ids.ts), which keeps inserts at the end of their indexes.
        for (const row of [contact, notes[0]!, opportunities[0]!, submissions[0]!]) {
          expect(new Date(parseInt(row.id.split('_')[1]!.slice(0, 9), 36)).toISOString()).toBe(row.created_at);
        }
        const strip = (row: Record<string, unknown>) =>
          Object.fromEntries(Object.entries(row).filter(([key]) => !['id', 'contact_id', 'submission_id', 'opportunity_id', 'created_at', 'updated_at', 'email', 'ip'].includes(key)));
        return {
          contact: strip(contact),
          note: strip(notes[0]!),
          opportunity: { ...strip(opportunities[0]!), title: opportunities[0]!.title.replace(email, '') },
          submission: { ...strip(submissions[0]!), field_values: JSON.parse(submissions[0]!.field_values).name },
        };
      };
      expect(await shapeOf('twin-a@example.com')).toEqual(await shapeOf('twin-b@example.com'));
    });

    it('updates the same contact on a second submission (matched by email, then by phone)', async () => {
      await submit(t.app, form.slug, { consentVersion: '1', email: 'grace@example.com', name: 'Grace' });
      await submit(t.app, form.slug, { consentVersion: '1', email: 'GRACE@example.com', phone: '(415) 555-0199', company: 'Navy' });
      await submit(t.app, form.slug, { consentVersion: '1', phone: '+14155550199', name: 'Grace Hopper' });
      const contacts = await t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('email', '=', 'grace@example.com').execute();
      expect(contacts).toHaveLength(1);
      expect(contacts[0]).toMatchObject({ name: 'Grace Hopper', company: 'Navy', phone: '+14155550199' });
    });

    it('ignores and never stores values of disabled fields', async () => {
      const narrow = await createForm(t.app, org, { fields: { phone: { enabled: false, required: false }, message: { enabled: false, required: false }, name: { enabled: false, required: false } } });
      const res = await submit(t.app, narrow.slug, { consentVersion: '1', email: 'narrow@example.com', phone: 'not a phone', name: 'Hidden', message: 'hidden note', company: 42 });
      expect(res.statusCode).toBe(200);
      const contact = await contactByEmail('narrow@example.com');
      expect(contact).toMatchObject({ name: null, phone: null, company: null });
      expect(await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contact!.id).execute()).toHaveLength(0);
      const [submission] = await submissionsOf(narrow.id);
      expect(JSON.parse(submission!.field_values)).toEqual({ email: 'narrow@example.com' });
      expect(submission!.opportunity_id).toBeNull();
    });

    it('an empty message adds no note; the configured pipeline and stage get the opportunity', async () => {
      const pipeline = await createPipeline(t.app, org, ['Web leads', 'Qualified']);
      const target = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id, stageId: pipeline.stages[1]!.id });
      expect((await submit(t.app, target.slug, { consentVersion: '1', email: 'pipe@example.com', message: '   ' })).statusCode).toBe(200);
      const contact = await contactByEmail('pipe@example.com');
      expect(await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contact!.id).execute()).toHaveLength(0);
      const opportunity = await t.database.db.selectFrom('opportunities').selectAll().where('contact_id', '=', contact!.id).executeTakeFirstOrThrow();
      expect(opportunity).toMatchObject({ pipeline_id: pipeline.id, stage_id: pipeline.stages[1]!.id });
    });

    it('accepts unicode: emoji, right-to-left, combining characters (stored NFC)', async () => {
      const cases = [
        { name: 'Zoë 🚀👩🏽‍💻', email: 'emoji@example.com', message: '👍 Thanks! 🎉' },
        { name: 'مرحبا بالعالم', email: 'rtl@example.com', message: 'שלום עולם \u202Eevil' },
        { name: 'Zoe\u0308 Cafe\u0301', email: 'combining@example.com', message: 'Ǹ̶̡a̴m̷e̵' },
        { name: '名前', email: 'ユーザー@例え.jp'.replace('ユーザー@例え.jp', 'cjk@example.jp'), message: '你好' },
      ];
      for (const values of cases) {
        const res = await submit(t.app, form.slug, { consentVersion: '1', ...values });
        expect(res.statusCode, values.email).toBe(200);
      }
      expect((await contactByEmail('emoji@example.com'))!.name).toBe('Zoë 🚀👩🏽‍💻');
      expect((await contactByEmail('rtl@example.com'))!.name).toBe('مرحبا بالعالم');
      expect((await contactByEmail('combining@example.com'))!.name).toBe('Zoë Café'.normalize('NFC'));
      // An emoji is one character: 200 of them fit the 200-character name limit.
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'emoji2@example.com', name: '🚀'.repeat(200) })).statusCode).toBe(200);
    });
  });

  describe('the rules, in order', () => {
    let form: FormRecordJson;

    beforeAll(async () => {
      const level = await createCustomField(t.app, org, { key: 'level', label: 'Level', type: 'select', options: ['junior', 'senior'] });
      form = await createForm(t.app, org, { fields: { name: { enabled: true, required: true } }, customFields: [{ key: level.key, required: true }] });
    });
    const valid = () => ({ consentVersion: '1', name: 'Ada', email: 'rules@example.com', custom: { level: 'senior' } });

    it('1. CONSENT_REQUIRED when consentVersion is missing, empty, of another type or different', async () => {
      const { consentVersion: _omit, ...withoutConsent } = valid();
      await expectRefused(form.slug, withoutConsent, 400, 'CONSENT_REQUIRED', 'consentVersion');
      for (const consentVersion of ['', '2', ' 1', 1, null, true, ['1'], { v: '1' }]) {
        await expectRefused(form.slug, { ...valid(), consentVersion }, 400, 'CONSENT_REQUIRED', 'consentVersion');
      }
    });

    it('1. a client holding a stale version after the consent text changed gets CONSENT_REQUIRED', async () => {
      const stale = await createForm(t.app, org, { consentText: 'Old text.' });
      expect((await submit(t.app, stale.slug, { consentVersion: '1', email: 'before@example.com' })).statusCode).toBe(200);
      await patch(stale.id, { consentText: 'New text.' });
      const body = await expectRefused(stale.slug, { consentVersion: '1', email: 'after@example.com' }, 400, 'CONSENT_REQUIRED', 'consentVersion');
      expect(body.error).toMatch(/changed/);
      expect((await submit(t.app, stale.slug, { consentVersion: '2', email: 'after@example.com' })).statusCode).toBe(200);
    });

    it('2. IDENTITY_REQUIRED without an email or a phone (blank counts as missing), after consent', async () => {
      await expectRefused(form.slug, { consentVersion: '1', name: 'Ada', custom: { level: 'senior' } }, 400, 'IDENTITY_REQUIRED');
      await expectRefused(form.slug, { consentVersion: '1', email: '  ', phone: '', custom: { level: 'senior' } }, 400, 'IDENTITY_REQUIRED');
      await expectRefused(form.slug, { email: 'x@example.com' }, 400, 'CONSENT_REQUIRED');
      await expectRefused(form.slug, {}, 400, 'CONSENT_REQUIRED');
      // A phone on a form without the phone field does not identify anyone.
      const emailOnly = await createForm(t.app, org, { fields: { phone: { enabled: false, required: false } } });
      const body = await expectRefused(emailOnly.slug, { consentVersion: '1', phone: '+14155552671' }, 400, 'IDENTITY_REQUIRED');
      expect(body.error).toMatch(/email address/);
    });

    it('3. FIELD_REQUIRED names the missing built-in or custom field, after identity', async () => {
      await expectRefused(form.slug, { ...valid(), name: '' }, 400, 'FIELD_REQUIRED', 'name');
      await expectRefused(form.slug, { ...valid(), name: null }, 400, 'FIELD_REQUIRED', 'name');
      await expectRefused(form.slug, { ...valid(), custom: {} }, 400, 'FIELD_REQUIRED', 'custom.level');
      await expectRefused(form.slug, { ...valid(), custom: undefined }, 400, 'FIELD_REQUIRED', 'custom.level');
      await expectRefused(form.slug, { consentVersion: '1', name: '' }, 400, 'IDENTITY_REQUIRED');
      const phoneRequired = await createForm(t.app, org, { fields: { phone: { enabled: true, required: true } } });
      await expectRefused(phoneRequired.slug, { consentVersion: '1', email: 'p@example.com' }, 400, 'FIELD_REQUIRED', 'phone');
    });

    it('3. a required checkbox must be ticked', async () => {
      const terms = await createCustomField(t.app, org, { type: 'checkbox', label: 'Newsletter' });
      const box = await createForm(t.app, org, { customFields: [{ key: terms.key, required: true }] });
      await expectRefused(box.slug, { consentVersion: '1', email: 'box@example.com', custom: { [terms.key]: false } }, 400, 'FIELD_REQUIRED', `custom.${terms.key}`);
      expect((await submit(t.app, box.slug, { consentVersion: '1', email: 'box@example.com', custom: { [terms.key]: true } })).statusCode).toBe(200);
    });

    it('4. INVALID_FIELD for malformed values, after the required checks', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'not-an-email' }, 'email'],
        [{ email: 'a@b' }, 'email'],
        [{ email: 42 }, 'email'],
        [{ email: 'x@example.com', phone: '12' }, 'phone'],
        [{ email: 'x@example.com', phone: 'call me maybe' }, 'phone'],
        [{ phone: '+1 555' }, 'phone'],
        [{ name: 123 }, 'name'],
        [{ name: ['Ada'] }, 'name'],
        [{ name: { first: 'Ada' } }, 'name'],
        [{ name: 'A'.repeat(201) }, 'name'],
        [{ message: 'm'.repeat(5001) }, 'message'],
        [{ custom: { level: 'principal' } }, 'custom.level'],
        [{ custom: { level: 'Senior' } }, 'custom.level'],
        [{ custom: { level: 1 } }, 'custom.level'],
        [{ custom: 'senior' }, 'custom.level'],
        [{ metadata: 'utm_source=x' }, 'metadata'],
        [{ metadata: { utm_source: 5 } }, 'metadata.utm_source'],
        [{ metadata: { utm_campaign: 'c'.repeat(501) } }, 'metadata.utm_campaign'],
        [{ name: 'Nul\u0000byte' }, 'name'],
        [{ name: 'Bell\u0007' }, 'name'],
      ];
      for (const [override, field] of cases) {
        const payload = { ...valid(), ...override };
        // A required custom value sent in the wrong shape is missing, not invalid.
        const code = field === 'custom.level' && override.custom === 'senior' ? 'FIELD_REQUIRED' : 'INVALID_FIELD';
        await expectRefused(form.slug, payload, 400, code, field);
      }
      // Rule order: a missing required field wins over a malformed one.
      await expectRefused(form.slug, { ...valid(), name: '', email: 'not-an-email' }, 400, 'FIELD_REQUIRED', 'name');
    });

    it('4. INVALID_FIELD: a lone surrogate escaped in JSON is refused', async () => {
      const payload = `{"consentVersion":"1","name":"Ada \\ud800","email":"surrogate@example.com","custom":{"level":"senior"}}`;
      await expectRefused(form.slug, payload, 400, 'INVALID_FIELD', 'name');
      const reversed = `{"consentVersion":"1","name":"Ada","email":"surrogate@example.com","message":"\\udc00\\ud83d","custom":{"level":"senior"}}`;
      await expectRefused(form.slug, reversed, 400, 'INVALID_FIELD', 'message');
      // An escaped pair is a real character.
      const pair = `{"consentVersion":"1","name":"Ada \\ud83d\\ude80","email":"pair@example.com","custom":{"level":"senior"}}`;
      expect((await submit(t.app, form.slug, pair)).statusCode).toBe(200);
    });

    it('4. INVALID_FIELD for each custom field type', async () => {
      const types = ['number', 'email', 'phone', 'url', 'date', 'checkbox', 'text'] as const;
      const fields = await Promise.all(types.map((type) => createCustomField(t.app, org, { type })));
      const typed = await createForm(t.app, org, { customFields: fields.map((field) => ({ key: field.key })) });
      const key = (type: (typeof types)[number]) => fields[types.indexOf(type)]!.key;
      const bad: [(typeof types)[number], unknown][] = [
        ['number', 'twelve'],
        ['number', true],
        ['email', 'nope'],
        ['phone', 'abc'],
        ['url', 'javascript:alert(1)'],
        ['date', '2026-02-30'],
        ['date', 'tomorrow'],
        ['checkbox', 'yes'],
        ['text', 'x'.repeat(1001)],
        ['text', { nested: true }],
      ];
      for (const [type, value] of bad) {
        await expectRefused(typed.slug, { consentVersion: '1', email: 'types@example.com', custom: { [key(type)]: value } }, 400, 'INVALID_FIELD', `custom.${key(type)}`);
      }
      const good = {
        [key('number')]: '42.5',
        [key('email')]: 'Other@Example.com',
        [key('phone')]: '(415) 555-2671',
        [key('url')]: 'https://acme.example',
        [key('date')]: '2026-02-28',
        [key('checkbox')]: false,
        [key('text')]: 'fine',
      };
      expect((await submit(t.app, typed.slug, { consentVersion: '1', email: 'types@example.com', custom: good })).statusCode).toBe(200);
      const [submission] = await submissionsOf(typed.id);
      expect(JSON.parse(submission!.custom)).toEqual({
        [key('number')]: 42.5,
        [key('email')]: 'other@example.com',
        [key('phone')]: '+14155552671',
        [key('url')]: 'https://acme.example',
        [key('date')]: '2026-02-28',
        [key('checkbox')]: false,
        [key('text')]: 'fine',
      });
    });
  });

  describe('honeypot', () => {
    it('any _hp value: 200 with the generic message, nothing written, whatever else the body holds', async () => {
      const form = await createForm(t.app, org, { successMessage: 'Real message', redirectUrl: 'https://acme.example/x', createOpportunity: true });
      for (const payload of [
        { _hp: 'http://spam.example', consentVersion: '1', email: 'bot@example.com', message: 'Buy now' },
        { _hp: 'x' },
        { _hp: ' ', consentVersion: 'wrong' },
        { _hp: 1, email: 'not-an-email' },
      ]) {
        const before = await writes();
        const res = await submit(t.app, form.slug, payload, { headers: { 'idempotency-key': `hp-${Math.random()}` } });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ success: true, data: { ok: true, successMessage: 'Thank you.', redirectUrl: null } });
        expect(await writes()).toEqual(before);
      }
      expect(await contactByEmail('bot@example.com')).toBeUndefined();
      // Empty or null is not a hit.
      expect((await submit(t.app, form.slug, { _hp: '', consentVersion: '1', email: 'human@example.com' })).json().data.successMessage).toBe('Real message');
      expect((await submit(t.app, form.slug, { _hp: null, consentVersion: '1', email: 'human2@example.com' })).json().data.successMessage).toBe('Real message');
    });
  });

  describe('one transaction', () => {
    it('a form whose pipeline was deleted fails with 422 PIPELINE_NOT_FOUND and writes nothing', async () => {
      const pipeline = await createPipeline(t.app, org);
      const form = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id, fields: { message: { enabled: true, required: false } } });
      // Warm the cache while the pipeline exists.
      expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
      // The API refuses to delete a pipeline an active form uses, and to reactivate a form whose
      // pipeline is gone; a delete racing with the form (here: straight in the database) is what is left.
      await deletePipelineBehindTheApisBack(pipeline.id);
      await expectRefused(form.slug, { consentVersion: '1', email: 'lost@example.com', name: 'Lost', message: 'Hello' }, 422, 'PIPELINE_NOT_FOUND');
      expect(await contactByEmail('lost@example.com')).toBeUndefined();
    });

    it('50 concurrent submissions with one email make exactly one contact and 50 submissions', async () => {
      const form = await createForm(t.app, org, { createOpportunity: true });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => submit(t.app, form.slug, { consentVersion: '1', email: 'Same.Person@example.com', name: `Try ${i}`, message: `Message ${i}` })),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
      const contacts = await t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('email', '=', 'same.person@example.com').execute();
      expect(contacts).toHaveLength(1);
      const submissions = await submissionsOf(form.id);
      expect(submissions).toHaveLength(50);
      expect(new Set(submissions.map((s) => s.contact_id))).toEqual(new Set([contacts[0]!.id]));
      expect(await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contacts[0]!.id).execute()).toHaveLength(50);
      expect(await t.database.db.selectFrom('opportunities').selectAll().where('contact_id', '=', contacts[0]!.id).execute()).toHaveLength(50);
    });

    it('one failing submission among concurrent ones fails alone', async () => {
      const pipeline = await createPipeline(t.app, org);
      const broken = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id });
      const fine = await createForm(t.app, org);
      await deletePipelineBehindTheApisBack(pipeline.id);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          submit(t.app, i === 7 ? broken.slug : fine.slug, { consentVersion: '1', email: `batch-${i}@example.com` }),
        ),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array.from({ length: 20 }, (_, i) => (i === 7 ? 422 : 200)));
      expect(await submissionsOf(fine.id)).toHaveLength(19);
      expect(await contactByEmail('batch-7@example.com')).toBeUndefined();
    });
  });

  describe('Idempotency-Key', () => {
    it('a repeat returns the first response and writes nothing; another key is a new submission', async () => {
      const form = await createForm(t.app, org, { successMessage: 'First answer' });
      const key = { 'idempotency-key': '3f1c9a4e-8d7b-4b52-9a10-7c2f1e0d5b6a' };
      const first = await submit(t.app, form.slug, { consentVersion: '1', email: 'idem@example.com' }, { headers: key });
      expect(first.statusCode).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      await patch(form.id, { successMessage: 'Second answer', consentText: 'Changed meanwhile.' });
      const before = await writes();
      // Even with a now-stale consent version, the retry gets the first response.
      const again = await submit(t.app, form.slug, { consentVersion: '1', email: 'idem@example.com' }, { headers: key });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await writes()).toEqual(before);
      const other = await submit(t.app, form.slug, { consentVersion: '2', email: 'idem@example.com' }, { headers: { 'idempotency-key': 'another-key' } });
      expect(other.json().data.successMessage).toBe('Second answer');
      expect(await submissionsOf(form.id)).toHaveLength(2);
    });

    it('concurrent repeats of one key write once', async () => {
      const form = await createForm(t.app, org);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => submit(t.app, form.slug, { consentVersion: '1', email: 'race@example.com' }, { headers: { 'idempotency-key': 'race-key-1' } })),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
      expect(await submissionsOf(form.id)).toHaveLength(1);
    });

    it('a key is remembered for 24 hours, per form; a refused submission does not use it up', async () => {
      const form = await createForm(t.app, org);
      const otherForm = await createForm(t.app, org);
      const key = { 'idempotency-key': 'day-key' };
      await expectRefused(form.slug, { consentVersion: 'nope', email: 'day@example.com' }, 400, 'CONSENT_REQUIRED', 'consentVersion', key);
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'day@example.com' }, { headers: key })).headers['idempotent-replayed']).toBeUndefined();
      expect((await submit(t.app, otherForm.slug, { consentVersion: '1', email: 'day@example.com' }, { headers: key })).headers['idempotent-replayed']).toBeUndefined();
      t.clock.advance(23 * 3600_000);
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'day@example.com' }, { headers: key })).headers['idempotent-replayed']).toBe('true');
      t.clock.advance(3600_000 + 1000);
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'day@example.com' }, { headers: key })).headers['idempotent-replayed']).toBeUndefined();
      expect(await submissionsOf(form.id)).toHaveLength(2);
    });

    it('refuses a malformed key', async () => {
      const form = await createForm(t.app, org);
      for (const value of ['x'.repeat(256), 'with space', 'naïve']) {
        await expectRefused(form.slug, { consentVersion: '1', email: 'badkey@example.com' }, 400, 'VALIDATION_ERROR', 'Idempotency-Key', { 'idempotency-key': value });
      }
    });
  });

  describe('bad input', () => {
    let form: FormRecordJson;
    beforeAll(async () => {
      form = await createForm(t.app, org);
    });

    const raw = async (payload: string | Buffer, headers: Record<string, string>) => {
      const before = await writes();
      const res = await t.app.inject({ method: 'POST', url: `/api/public/forms/${form.slug}/submit`, remoteAddress: nextClientIp(), headers, payload });
      expect(res.json().success).toBe(false);
      expect(res.json().error).toEqual(expect.any(String));
      expect(await writes()).toEqual(before);
      return res;
    };

    it('invalid JSON, a non-object body or an empty body is a 400', async () => {
      for (const payload of ['{"consentVersion": "1", ', 'not json', '[]', '"a string"', 'null', '42', '']) {
        const res = await raw(payload, { 'content-type': 'application/json' });
        expect(res.statusCode, payload).toBe(400);
        expect(res.json().code).toBe('VALIDATION_ERROR');
      }
    });

    it('a Content-Type other than JSON is a 415', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const res = await raw('consentVersion=1&email=a%40b.com', { 'content-type': type });
        expect(res.statusCode, type).toBe(415);
        expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('a body over 64 KB is a 413, even 1 MB', async () => {
      const big = JSON.stringify({ consentVersion: '1', email: 'big@example.com', message: 'x'.repeat(70 * 1024) });
      expect((await raw(big, { 'content-type': 'application/json' })).statusCode).toBe(413);
      const huge = JSON.stringify({ consentVersion: '1', email: 'big@example.com', message: 'x'.repeat(1024 * 1024) });
      const res = await raw(huge, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('__proto__ and constructor.prototype keys are refused, at any depth', async () => {
      for (const payload of [
        '{"consentVersion":"1","email":"proto@example.com","__proto__":{"isAdmin":true}}',
        '{"consentVersion":"1","email":"proto@example.com","custom":{"__proto__":{"x":1}}}',
        '{"consentVersion":"1","email":"proto@example.com","constructor":{"prototype":{"x":1}}}',
      ]) {
        const res = await raw(payload, { 'content-type': 'application/json' });
        expect(res.statusCode, payload).toBe(400);
        expect(res.json().code).toBe('VALIDATION_ERROR');
      }
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it(`custom values may make the body ${MAX_JSON_DEPTH} levels deep; ${MAX_JSON_DEPTH + 1} or 10,000 levels are a 400 that writes nothing`, async () => {
      // Body, custom and the value's own brackets: the value nests 62 levels in a 64-level body.
      const body = (levels: number) => `{"consentVersion":"1","email":"deep-${levels}@example.com","custom":{"extra":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
      const accepted = await submit(t.app, form.slug, body(MAX_JSON_DEPTH - 2));
      expect(accepted.statusCode).toBe(200);
      for (const levels of [MAX_JSON_DEPTH - 1, 10_000]) {
        const res = await raw(body(levels), { 'content-type': 'application/json' });
        expect(res.statusCode, `${levels}`).toBe(400);
        expect(res.json()).toMatchObject({
          code: 'VALIDATION_ERROR', field: 'custom',
          error: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (in "custom"). Send at most ${MAX_JSON_DEPTH} levels.`,
        });
      }
    });

    it('bytes that are not UTF-8 are a 400 naming the problem, not a name stored with U+FFFD', async () => {
      const payload = Buffer.concat([Buffer.from('{"consentVersion":"1","email":"bytes@example.com","name":"Caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      const res = await raw(payload, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: 'The request body is not valid UTF-8 (at byte 61). Send text encoded as UTF-8.' });
      expect(await contactByEmail('bytes@example.com')).toBeUndefined();
    });

    it('a value named like an Object property is just an unknown key', async () => {
      const res = await submit(t.app, form.slug, { consentVersion: '1', email: 'names@example.com', custom: { toString: 'x', hasOwnProperty: 'y' }, metadata: { valueOf: 'z' } });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('rate limit', () => {
    it('the 11th submission in a minute from one IP to one form is 429; another form or IP is not; the window resets', async () => {
      const form = await createForm(t.app, org);
      const other = await createForm(t.app, org);
      // Start at the beginning of a window so the test never straddles two.
      t.clock.advance(60_000 - (t.clock.now().getTime() % 60_000));
      const ip = nextClientIp();
      for (let i = 1; i <= 10; i++) {
        const res = await submit(t.app, form.slug, { consentVersion: '1', email: `rl-${i}@example.com` }, { ip });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('10');
        expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
        expect(res.headers['ratelimit-reset']).toBe('60');
      }
      const before = await writes();
      const limited = await submit(t.app, form.slug, { consentVersion: '1', email: 'rl-11@example.com' }, { ip });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
      expect(limited.json().error).toMatch(/try again in 60 seconds/i);
      expect(limited.headers['retry-after']).toBe('60');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(await writes()).toEqual(before);
      // Even a malformed or oversized body is refused by the limit first.
      expect((await submit(t.app, form.slug, 'x'.repeat(100 * 1024), { ip })).statusCode).toBe(429);

      expect((await submit(t.app, other.slug, { consentVersion: '1', email: 'rl-other@example.com' }, { ip })).statusCode).toBe(200);
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'rl-ip@example.com' })).statusCode).toBe(200);

      t.clock.advance(30_000);
      const later = await submit(t.app, form.slug, { consentVersion: '1', email: 'rl-12@example.com' }, { ip });
      expect(later.statusCode).toBe(429);
      expect(later.headers['retry-after']).toBe('30');
      t.clock.advance(30_000);
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'rl-13@example.com' }, { ip })).statusCode).toBe(200);
    });
  });
});
