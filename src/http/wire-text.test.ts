import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp } from '../../test/support/factories.js';
import { createAgent, createCustomField } from '../../test/support/form-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createValidatorCompiler } from './validation.js';

/** The wire-text rule (wire-text.ts) and path ids that cannot exist (path-ids.ts), as a client meets them. */
describe.each(testDialects())('text on the wire (%s)', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    org = await createOrgWithKey(t.database, t.clock);
    call = orgCaller(t.app);
  });
  afterAll(async () => t.close());

  async function agentCount(): Promise<number> {
    const row = await t.database.db.selectFrom('agents').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A raw JSON body, so escapes like \ud800 reach the server exactly as a client wrote them. */
  function postRaw(url: string, json: string) {
    return t.app.inject({ method: 'POST', url, headers: { ...org.auth, 'content-type': 'application/json' }, payload: json });
  }

  it.each([
    ['NUL', '"Front\\u0000desk"', /name contains a control character/],
    ['a lone surrogate', '"x\\ud800y"', /name contains an invalid character \(a lone UTF-16 surrogate\)/],
    ['a tab in a one-line field', '"Front\\tdesk"', /name contains a control character \(tabs and line breaks are not allowed here\)/],
    ['a line break in a one-line field', '"Front\\ndesk"', /tabs and line breaks/],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, name, message) => {
    const before = await agentCount();
    const branding = '{"name":"Acme","primaryColor":"#1a73e8","backgroundColor":"#ffffff","textColor":"#202124","fontFamily":"Inter","logoUrl":"https://acme.example/logo.png"}';
    const res = await postRaw('/api/org/agents', `{"name":${name},"branding":${branding}}`);
    expect(res.statusCode).toBe(400);
    const body = res.json() as { code: string; field: string; error: string };
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.field).toBe('name');
    expect(body.error).toMatch(message);
    expect(await agentCount()).toBe(before);
  });

  it('refuses bytes that are not UTF-8 with a 400 naming the problem, and stores nothing (no U+FFFD in their place)', async () => {
    const before = await agentCount();
    const branding = '"branding":{"name":"Acme","primaryColor":"#1a73e8","backgroundColor":"#ffffff","textColor":"#202124","logoUrl":"https://acme.example/logo.png"}';
    // 0xC3 starts a two-byte character; 0x28 "(" cannot continue it. Then a lone continuation byte, an overlong "/" and an encoded surrogate.
    for (const [bad, at] of [[[0xc3, 0x28], 11], [[0x80], 11], [[0xc0, 0xaf], 11], [[0xed, 0xa0, 0x80], 11]] as const) {
      const payload = Buffer.concat([Buffer.from('{"name":"Fr'), Buffer.from(bad), Buffer.from(`nt desk",${branding}}`)]);
      const res = await t.app.inject({ method: 'POST', url: '/api/org/agents', headers: { ...org.auth, 'content-type': 'application/json' }, payload });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: `The request body is not valid UTF-8 (at byte ${at}). Send text encoded as UTF-8.` });
    }
    expect(await agentCount()).toBe(before);
    // U+FFFD itself, sent as its valid bytes, is just a character.
    const replacement = await postRaw('/api/org/agents', `{"name":"Fr\uFFFDnt desk",${branding}}`);
    expect(replacement.statusCode).toBe(201);
    expect(replacement.json().data.name).toBe('Fr\uFFFDnt desk');
  });

  it('refuses an empty PATCH of a form with 400 and changes nothing, updatedAt included', async () => {
    const form = (await call('POST', '/api/org/forms', org, { slug: `wire-${Date.now()}`, title: 'Visit', consentText: 'I agree.' })).json().data as { id: string; updatedAt: string };
    t.clock.advance(60_000);
    const res = await call('PATCH', `/api/org/forms/${form.id}`, org, {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringMatching(/^Invalid request: body must name at least one field to change: slug, title, /) });
    const read = await call('GET', `/api/org/forms/${form.id}`, org);
    expect(read.json().data).toMatchObject({ updatedAt: form.updatedAt, title: 'Visit' });
  });

  it('answers what it stored: text is normalized to NFC before it is saved', async () => {
    const decomposed = 'Cafe\u0301 de Flore';
    const created = await createAgent(t.app, org, { name: decomposed });
    expect(created.branding).toMatchObject({ name: 'Caf\u00e9 de Flore' });
    const read = await call('GET', `/api/org/agents/${created.id}`, org);
    expect((read.json() as { data: { branding: { name: string } } }).data.branding.name).toBe('Caf\u00e9 de Flore');
  });

  it('keeps tabs and line breaks in multi-line fields exactly as sent', async () => {
    const contact = await call('POST', '/api/org/contacts', org, { email: `multi-${Date.now()}@example.com` });
    const contactId = (contact.json() as { data: { id: string } }).data.id;
    const text = 'Called back.\r\nWants:\n\t- a quote\n\t- a demo';
    const note = await call('POST', `/api/org/contacts/${contactId}/notes`, org, { body: text });
    expect(note.statusCode).toBe(201);
    const detail = await call('GET', `/api/org/contacts/${contactId}`, org);
    expect((detail.json() as { data: { notes: { body: string }[] } }).data.notes[0]?.body).toBe(text);
    const nul = await call('POST', `/api/org/contacts/${contactId}/notes`, org, { body: 'a\u0000b' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'body' });
  });

  it('checks every string inside values of open shape, and their keys', async () => {
    await createCustomField(t.app, org, { key: 'notes_field', type: 'textarea' });
    for (const custom of [{ notes_field: 'a\u0000b' }, { 'bad\u0000key': 'x' }]) {
      const res = await call('POST', '/api/org/contacts', org, { email: `open-${Date.now()}@example.com`, custom });
      expect(res.statusCode).toBe(400);
      expect((res.json() as { code: string }).code).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses bad text in query strings and in forged cursors', async () => {
    const query = await call('GET', '/api/org/contacts?q=a%00b', org);
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'q' });
    const forged = Buffer.from(JSON.stringify(['\u0000', 'x'])).toString('base64url');
    const cursor = await call('GET', `/api/org/contacts?cursor=${forged}`, org);
    expect(cursor.statusCode).toBe(400);
    expect(cursor.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'cursor' });
  });

  it('answers a path id that cannot exist exactly like one that does not exist', async () => {
    const missing = await call('GET', '/api/org/agents/agt_00000000000000000000', org);
    expect(missing.statusCode).toBe(404);
    for (const id of ['a%00b', 'agt_%00', 'ct_00000000000000000000', 'agt_' + 'x'.repeat(500), 'not-an-id', 'agt_0000000000000000000%C3%A9']) {
      const res = await call('GET', `/api/org/agents/${id}`, org);
      expect(res.statusCode, id).toBe(404);
      expect({ code: res.json().code, error: res.json().error }).toEqual({ code: missing.json().code, error: missing.json().error });
    }
    // Bytes that are not UTF-8 make the URL itself malformed, whatever route it was meant for.
    const malformed = await call('GET', '/api/org/agents/agt_%ED%A0%80', org);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: 'The request URL is malformed (check its percent-encoding).' });
  });

  it('refuses form-encoded bytes that are not UTF-8 on the token endpoint as invalid_request', async () => {
    const { app } = await createDeveloperWithApp(t.database, t.clock);
    for (const payload of [`grant_type=client_credentials&client_id=${app.clientId}&client_secret=${app.clientSecret}&scope=tools%C3%28`, Buffer.from([0x67, 0x72, 0xff])]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/not valid UTF-8/) });
    }
  });

  it('refuses bad text on the token endpoint in RFC 6749 terms', async () => {
    const { app } = await createDeveloperWithApp(t.database, t.clock);
    const form = (clientId: string) => `grant_type=client_credentials&client_id=${clientId}&client_secret=${app.clientSecret}`;
    const post = (payload: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload });
    const nul = await post(form('app_%00'));
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ error: 'invalid_request' });
    expect(nul.json().error_description).toMatch(/client_id contains a control character/);
    // In Basic credentials the client id is base64: it reaches the service, which does not look it up.
    const basic = Buffer.from(`app_\u0000:${app.clientSecret}`).toString('base64');
    const viaBasic = await post('grant_type=client_credentials', { authorization: `Basic ${basic}` });
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('a path id that cannot exist', () => {
  it('is answered without a query: the answer comes even with the database gone', async () => {
    const t = await createTestContext('sqlite');
    await t.database.close();
    const malformed = await t.app.inject({ method: 'GET', url: '/api/catalog/tools/not-a-tool-id' });
    expect(malformed.statusCode).toBe(404);
    expect(malformed.json()).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const wellFormed = await t.app.inject({ method: 'GET', url: '/api/catalog/tools/tool_00000000000000000000' });
    expect(wellFormed.statusCode).toBe(500);
    await t.app.close();
  });
});

describe('the wire-text walk of open values', () => {
  it('reaches every string however deep the value, without recursion (no stack to overflow)', () => {
    const validate = createValidatorCompiler()({ schema: Type.Object({ custom: Type.Unknown() }), method: 'POST', url: '/x', httpPart: 'body' }) as (data: unknown) => boolean;
    // Far past MAX_JSON_DEPTH: the walk does not rely on the body parser's limit.
    let deep: unknown = ['a\u0000b'];
    for (let level = 0; level < 100_000; level++) deep = { next: deep };
    expect(validate({ custom: deep })).toBe(false);
    let clean: unknown = ['Cafe\u0301'];
    for (let level = 0; level < 100_000; level++) clean = [clean];
    const body = { custom: clean };
    expect(validate(body)).toBe(true);
    let node: unknown = body.custom;
    while (Array.isArray(node) && Array.isArray(node[0])) node = node[0];
    expect(node).toEqual(['Caf\u00e9']);
  });
});
