import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTimeOrderedId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createCustomField, createForm, submit } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { csvCell } from './csv.js';

/** Parses RFC 4180 CSV (quoted cells, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; } else cell += c;
  }
  return rows;
}

describe('CSV cells', () => {
  it.each([
    ['=HYPERLINK("http://evil")', `"'=HYPERLINK(""http://evil"")"`],
    ['+1 555', "'+1 555"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
    ['plain', 'plain'],
    [null, ''],
  ])('writes %j as %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe.each(testDialects())('submissions export and consent versions on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => t.close());

  it('streams every submission as CSV with the consent text, injection-safe, page after page', async () => {
    const field = await createCustomField(t.app, org, { key: 'budget' });
    const form = await createForm(t.app, org, { customFields: [{ key: field.key }], fields: { phone: { enabled: true, required: false } } });
    const sent = await submit(t.app, form.slug, { consentVersion: '1', name: '=cmd|calc', email: 'ada@example.com', custom: { budget: '@10,000' }, metadata: { utm_source: 'news, "weekly"' } });
    expect(sent.statusCode, sent.body).toBe(200);
    // A new consent text: later submissions carry version 2 and its text.
    await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { consentText: 'Version two: you may call me.' } });
    t.clock.advance(1000);
    expect((await submit(t.app, form.slug, { consentVersion: '2', email: 'bob@example.com' })).statusCode).toBe(200);
    // Many more rows, written directly: more than two pages of the export's queries.
    const contact = await t.database.db.selectFrom('contacts').select('id').where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    const base = t.clock.now().getTime() - 86_400_000;
    const bulk = Array.from({ length: 1203 }, (_, i) => {
      const createdAt = new Date(base + i * 10).toISOString();
      return { id: newTimeOrderedId('sub', createdAt), org_id: org.orgId, form_id: form.id, contact_id: contact.id, opportunity_id: null, field_values: JSON.stringify({ email: `bulk${i}@example.com` }), custom: '{}', consent_version: '1', metadata: '{}', ip: null, user_agent: null, created_at: createdAt };
    });
    for (let i = 0; i < bulk.length; i += 200) await t.database.db.insertInto('submissions').values(bulk.slice(i, i + 200)).execute();

    const res = await t.app.inject({ method: 'GET', url: `/api/org/forms/${form.id}/submissions/export`, headers: org.auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${form.slug}-submissions.csv"`);
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const rows = parseCsv(res.body.slice(1));
    expect(rows[0]).toEqual(['submittedAt', 'id', 'name', 'email', 'phone', 'message', 'budget', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'consentVersion', 'consentText']);
    expect(rows).toHaveLength(1 + 2 + 1203);
    const ids = rows.slice(1).map((row) => row[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(rows[1]).toMatchObject({ 3: 'bob@example.com', 12: '2', 13: 'Version two: you may call me.' });
    expect(rows[2]!.slice(2, 14)).toEqual(["'=cmd|calc", 'ada@example.com', '', '', "'@10,000", 'news, "weekly"', '', '', '', '', '1', 'I agree to be contacted about my request.']);
    expect(rows[rows.length - 1]![3]).toBe('bulk0@example.com');
  });

  it("lists consent versions newest first, and answers 404 for another org's form", async () => {
    const form = await createForm(t.app, org);
    for (const text of ['Second text.', 'Third text.']) {
      t.clock.advance(1000);
      await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { consentText: text } });
    }
    const res = await t.app.inject({ method: 'GET', url: `/api/org/forms/${form.id}/consent-versions`, headers: org.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((v: { version: string; text: string }) => [v.version, v.text])).toEqual([['3', 'Third text.'], ['2', 'Second text.'], ['1', 'I agree to be contacted about my request.']]);
    for (const url of [`/api/org/forms/${form.id}/consent-versions`, `/api/org/forms/${form.id}/submissions/export`]) {
      const theirs = await t.app.inject({ method: 'GET', url, headers: other.auth });
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().code).toBe('FORM_NOT_FOUND');
    }
  });
});
