import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { dereference, sample } from '../../test/support/openapi.js';
import { createAgent, createForm, nextClientIp, uniqueSlug } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, fixedResolver, publishTool } from '../../test/support/tools-factories.js';

/**
 * Walks /openapi.json and sends bad input to every operation, authenticated as each needs:
 * bad text to every parameter — each path and query parameter and each string field of each
 * body — as NUL, as a lone UTF-16 surrogate and as an over-long value; JSON nested thousands of
 * levels deep and bytes that are not UTF-8 to every body; `{}` to every partial update. No answer
 * may be a 5xx, and nothing may be logged at error level: bad input is the client's problem,
 * never a stack trace in our logs.
 */

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  parameters: { in: string; name: string; schema: Json; example?: unknown }[];
  body?: { type: string; schema: Json };
  auth: 'developer' | 'org' | 'session' | 'agent' | 'none';
}

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\uD800b';
const OVER_LONG = 'x'.repeat(100_000);
const BAD_VALUES = { nul: NUL, 'lone surrogate': LONE_SURROGATE, 'over-long': OVER_LONG };

/** In a URL a lone surrogate can only arrive as its (invalid) UTF-8 bytes; encodeURIComponent refuses it. */
function inUrl(value: string): string {
  return value === LONE_SURROGATE ? 'a%ED%A0%80b' : encodeURIComponent(value);
}

/** Paths (lists of keys) of every string field a body may hold, array items included. */
function stringFields(schema: Json, at: (string | number)[] = [], depth = 0): (string | number)[][] {
  if (depth > 4) return [];
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union) return union.flatMap((variant) => stringFields(variant, at, depth + 1)).filter((p, i, all) => all.findIndex((q) => q.join('.') === p.join('.')) === i);
  // Strings, and values of open shape (no type, no union, no reference: tool-call `arguments`).
  const open = schema.type === undefined && !['anyOf', 'oneOf', 'allOf', '$ref', 'properties', 'enum', 'const'].some((key) => key in schema);
  if (schema.type === 'string' || open) return [at];
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const fields = Object.entries(properties).flatMap(([name, property]) => stringFields(property, [...at, name], depth + 1));
    // Open records (custom values, metadata) get a key of our own.
    if (schema.patternProperties || (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null)) fields.push([...at, 'somekey']);
    return fields;
  }
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') return stringFields(schema.items as Json, [...at, 0], depth + 1);
  return [];
}

const FORM = 'application/x-www-form-urlencoded';

function sampleAll(schema: Json): Json {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, name === 'grant_type' ? 'client_credentials' : sample(property)]));
}

function forgedCursor(value: string): string {
  return Buffer.from(JSON.stringify([value, 'x']), 'utf8').toString('base64url');
}

function setAt(body: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as Json;
  let node: Json = copy;
  path.forEach((key, i) => {
    if (i === path.length - 1) node[key] = value;
    else node = (node[key] ??= typeof path[i + 1] === 'number' ? [] : {}) as Json;
  });
  return copy;
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, { schema: Json }>;
      const [type, media] = Object.entries(content)[0] ?? [];
      const security = JSON.stringify(op.security ?? []);
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: ((op.parameters ?? []) as Operation['parameters']).filter((p) => p.in === 'path' || p.in === 'query'),
        ...(type && media ? { body: { type, schema: media.schema } } : {}),
        auth: security.includes('oauth2') ? 'developer' : security.includes('orgApiKey') ? 'org' : security.includes('consoleSession') ? 'session' : security.includes('agentKey') ? 'agent' : 'none',
      });
    }
  }
  // Deletions last, so the records the other operations use are still there.
  return operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

describe.each(testDialects())('bad text on every operation (%s)', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let developerAuth: { authorization: string };
  /** A console session's cookie and CSRF token, for the routes only a session reaches (/api/auth/session, /password…, the apps: the person is a developer too). */
  let sessionAuth: Record<string, string>;
  /** An agent key, for /mcp. */
  let agentAuth: { authorization: string };
  /** The name the org's agents call the installed tool by. */
  let toolName: string;
  /** A visitor of a live chat (its allowed Origin and session), for /api/public/chats/…: they refuse before the body otherwise. */
  let chatAuth: Record<string, string>;
  const ids: Record<string, string> = {};
  const lines: string[] = [];
  let operations: Operation[];

  beforeAll(async () => {
    const logStream = new Writable({ write: (chunk, _encoding, done) => { lines.push(String(chunk)); done(); } });
    t = await createTestContext(dialect, { env: { LOG_LEVEL: 'info' }, deps: { logStream, resolveHost: fixedResolver() } });
    org = await createOrgWithKey(t.database, t.clock);
    developerAuth = (await developerSession(t.database, t.clock, t.app)).auth;
    const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'bad-input@example.com', password: 'violet kettle marathon', name: 'Bad Input', organizationName: 'Bad Input Co', developer: true } });
    sessionAuth = { cookie: String(signup.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': (signup.json() as { data: { csrfToken: string } }).data.csrfToken };
    // One real record of each kind, so requests that name one reach the queries that read and write it.
    const call = async (method: 'POST', url: string, payload: Json) => {
      const res = await t.app.inject({ method, url, headers: org.auth, payload });
      if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return (res.json() as { data: Json }).data;
    };
    ids.tool = (await createTool(t.app, developerAuth)).id;
    const app = await t.app.inject({ method: 'POST', url: '/api/dev/apps', headers: sessionAuth, payload: { name: 'Bad input', scopes: ['tools:read'] } });
    if (app.statusCode !== 201) throw new Error(`/api/dev/apps: ${app.statusCode} ${app.body}`);
    ids.app = (app.json() as { data: { id: string } }).data.id;
    await publishTool(t.app, developerAuth, ids.tool);
    ids.agt = (await createAgent(t.app, org)).id;
    agentAuth = { authorization: `Bearer ${(await call('POST', `/api/org/agents/${ids.agt}/keys`, { name: 'MCP' })).key as string}` };
    ids.key = (await call('POST', '/api/org/api-keys', { name: 'Zapier' })).id as string;
    ids.cf = (await call('POST', '/api/org/custom-fields', { key: 'budget', label: 'Budget', entity: 'contact', type: 'text' })).id as string;
    const pipeline = await call('POST', '/api/org/pipelines', { name: 'Partners', stages: [{ name: 'New' }, { name: 'Won' }] });
    ids.pipe = pipeline.id as string;
    ids.stg = ((pipeline.stages as Json[])[1] as Json).id as string;
    ids.ct = (await call('POST', '/api/org/contacts', { email: 'lead@example.com' })).id as string;
    ids.opp = (await call('POST', '/api/org/opportunities', { title: 'Deal', contactId: ids.ct })).id as string;
    const installation = await call('POST', '/api/org/installations', { toolId: ids.tool });
    ids.inst = installation.id as string;
    toolName = installation.name as string;
    const form = await createForm(t.app, org, { slug: uniqueSlug() });
    ids.frm = form.id;
    ids.slug = form.slug;
    ids.mp = (await call('POST', '/api/org/model-providers', { name: 'OpenAI', kind: 'openai', apiKey: 'sk-bad-input' })).id as string;
    // A host that does not resolve: its test pings never connect anywhere.
    ids.wh = (await call('POST', '/api/org/webhooks', { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] })).id as string;
    ids.whd = (await call('POST', `/api/org/webhooks/${ids.wh}/test`, {})).id as string;
    // A live chat and a visitor session whose message count is used up, so a valid message is refused (429) before any model is asked.
    const chatAgent = (await createAgent(t.app, org)).id;
    const chatOn = await t.app.inject({ method: 'PATCH', url: `/api/org/agents/${chatAgent}`, headers: org.auth, payload: { model: { providerId: ids.mp, model: 'gpt-4.1-mini', instructions: '' }, chat: { enabled: true, allowedOrigins: ['https://shop.example.com'] } } });
    if (chatOn.statusCode !== 200) throw new Error(`chat: ${chatOn.statusCode} ${chatOn.body}`);
    ids.chat = (chatOn.json() as { data: { chat: { chatId: string } } }).data.chat.chatId;
    const visitor = await t.app.inject({ method: 'POST', url: `/api/public/chats/${ids.chat}/sessions`, headers: { origin: 'https://shop.example.com' }, payload: {} });
    if (visitor.statusCode !== 201) throw new Error(`chat session: ${visitor.statusCode} ${visitor.body}`);
    chatAuth = { origin: 'https://shop.example.com', authorization: `Bearer ${(visitor.json() as { data: { token: string } }).data.token}` };
    await t.database.db.updateTable('chat_sessions').set({ visitor_messages: 1_000 }).execute();
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
    // Shared schemas are components the operations refer to: read each operation with its $refs resolved.
    operations = operationsOf({ paths: dereference(document, document.paths) } as Json);
  });
  afterAll(async () => t.close());

  function headersFor(op: Operation): Record<string, string> {
    if (op.path.startsWith('/api/public/chats/')) return chatAuth;
    if (op.auth === 'agent') return { ...agentAuth, accept: 'application/json, text/event-stream' };
    return op.auth === 'developer' ? developerAuth : op.auth === 'org' ? org.auth : op.auth === 'session' ? sessionAuth : {};
  }

  /** A real id for a path parameter, by the prefix of its documented example. */
  function pathValue(parameter: Operation['parameters'][number]): string {
    if (parameter.name === 'slug') return ids.slug as string;
    const prefix = String(parameter.example ?? '').split('_')[0] ?? '';
    return ids[prefix] ?? String(parameter.example ?? 'abc');
  }

  function url(op: Operation, override?: { name: string; in: string; value: string }): string {
    let path = op.path;
    const query: string[] = [];
    for (const parameter of op.parameters) {
      const bad = override && override.name === parameter.name && override.in === parameter.in ? override.value : undefined;
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, bad !== undefined ? inUrl(bad) : pathValue(parameter));
      else if (bad !== undefined) query.push(`${parameter.name}=${inUrl(bad)}`);
    }
    return query.length ? `${path}?${query.join('&')}` : path;
  }

  function payload(op: Operation, body: unknown): { payload?: string; headers: Record<string, string> } {
    if (!op.body) return { headers: headersFor(op) };
    if (op.body.type === FORM) {
      const form = Object.entries(body as Record<string, string>).map(([k, v]) => `${k}=${inUrl(String(v))}`).join('&');
      return { payload: form, headers: { ...headersFor(op), 'content-type': op.body.type } };
    }
    return { payload: JSON.stringify(body), headers: { ...headersFor(op), 'content-type': 'application/json' } };
  }

  it('never answers 5xx and never logs an error', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations) {
      // Form bodies (OAuth) get every field, so a bad client_id meets a client_secret and reaches the lookup.
      const validBody = op.body ? (op.body.type === FORM ? sampleAll(op.body.schema) : sample(op.body.schema)) : undefined;
      const attempts: { what: string; url: string; body: unknown }[] = [];
      for (const [kind, value] of Object.entries(BAD_VALUES)) {
        for (const parameter of op.parameters) {
          attempts.push({ what: `${parameter.in} ${parameter.name} ${kind}`, url: url(op, { ...parameter, value }), body: validBody });
          // A cursor is opaque text that we decode: the bad text can also hide inside it.
          if (parameter.name === 'cursor') attempts.push({ what: `cursor holding ${kind}`, url: url(op, { ...parameter, value: forgedCursor(value) }), body: validBody });
        }
        // The body limit answers an over-long body before any field is read; parameters get the long value above.
        if (op.body && kind !== 'over-long') {
          for (const field of stringFields(op.body.schema)) attempts.push({ what: `body ${field.join('.')} ${kind}`, url: url(op), body: setAt(validBody, field, value) });
        }
      }
      // A lone surrogate in a JSON body arrives as the escape \ud800, which is what clients send.
      for (const attempt of attempts) {
        const { payload: raw, headers } = payload(op, attempt.body);
        const res = await t.app.inject({ method: op.method as 'GET', url: attempt.url, headers, ...(raw !== undefined ? { payload: raw } : {}) });
        sent++;
        if (res.statusCode >= 500) failures.push(`${op.method} ${op.path} — ${attempt.what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(300);
    const errors = lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    expect(lines.join('')).not.toContain('"stack"');
  });

  /** Bodies the size checks answer before the parser reads them: each JSON operation's limit is one of these. */
  const BODY_LIMITS = [8 * 1024, 64 * 1024, 128 * 1024, 256 * 1024];
  const deepArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const deepObjects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  /** Arrays (or objects) nested as deep as `bytes` bytes allow, padded with leading spaces to exactly that size. */
  function deepOfSize(kind: 'arrays' | 'objects', bytes: number): string {
    const text = kind === 'arrays' ? deepArrays(Math.floor(bytes / 2)) : deepObjects(Math.floor((bytes - 1) / 6));
    return ' '.repeat(bytes - text.length) + text;
  }
  const HOLE = 'x-hole-x';
  /** The valid body as JSON text, with `value` (raw bytes or JSON text) in place of the field at `path`, or as the whole body. */
  function withHole(body: unknown, path: (string | number)[] | 'root', value: Buffer): Buffer {
    if (path === 'root') return value;
    const [before, after] = JSON.stringify(setAt(body, path, HOLE)).split(`"${HOLE}"`) as [string, string];
    return Buffer.concat([Buffer.from(before), value, Buffer.from(after)]);
  }
  /** A string holding 0xC3 0x28: a two-byte sequence whose second byte is not a continuation byte. */
  const NOT_UTF8 = Buffer.concat([Buffer.from('"Caf'), Buffer.from([0xc3, 0x28]), Buffer.from(' Flore"')]);

  async function send(op: Operation, payload: Buffer, contentType = 'application/json') {
    // A fresh client address each time: the per-address limits of the public and sign-in routes stay out of it.
    return t.app.inject({ method: op.method as 'POST', url: url(op), remoteAddress: nextClientIp(), headers: { ...headersFor(op), 'content-type': contentType }, payload });
  }

  /** What is wrong with an answer to a body that must be refused as the client's mistake, if anything. */
  function notRefused(op: Operation, res: { statusCode: number; body: string }, bytes: number, limit: number): string | undefined {
    if (bytes > limit) return res.statusCode === 413 ? undefined : `expected 413 past the ${limit}-byte limit, got ${res.statusCode}`;
    if (res.statusCode !== 400) return `expected 400, got ${res.statusCode} ${res.body.slice(0, 160)}`;
    const body = JSON.parse(res.body) as Json;
    if (op.path === '/mcp') {
      // JSON-RPC, never the REST shape: unreadable (-32700), inside params (-32602), or not a valid request (-32600).
      const error = body.error as Json | undefined;
      return body.jsonrpc === '2.0' && [-32700, -32602, -32600].includes(error?.code as number) && !('success' in body) ? undefined : `not a JSON-RPC error: ${res.body.slice(0, 160)}`;
    }
    if (op.body?.type === FORM) return body.error === 'invalid_request' ? undefined : `not invalid_request: ${res.body.slice(0, 160)}`;
    return body.code === 'VALIDATION_ERROR' && typeof body.error === 'string' ? undefined : `not VALIDATION_ERROR: ${res.body.slice(0, 160)}`;
  }

  /** The operation's body limit: the one of BODY_LIMITS whose size is still read and whose next byte is refused with 413. */
  async function bodyLimitOf(op: Operation): Promise<number | undefined> {
    for (const limit of BODY_LIMITS) {
      const at = await send(op, Buffer.from(deepOfSize('arrays', limit)));
      if (at.statusCode === 413) continue;
      const past = await send(op, Buffer.from(deepOfSize('arrays', limit + 1)));
      if (past.statusCode === 413) return limit;
    }
    return undefined;
  }

  it('refuses JSON nested thousands of levels deep and bytes that are not UTF-8 in every body with 400 (413 only past the size limit)', async () => {
    const failures: string[] = [];
    const jsonOperations = operations.filter((op) => op.body?.type === 'application/json');
    let sent = 0;
    for (const op of jsonOperations) {
      const limit = await bodyLimitOf(op);
      if (limit === undefined) {
        failures.push(`${op.method} ${op.path}: no body limit among ${BODY_LIMITS.join(', ')}`);
        continue;
      }
      // A call of the installed tool, so deep arguments reach what a call runs through; weightKg is left out,
      // so even a body the depth check let through would stop at INVALID_ARGUMENTS and no request would leave.
      const mcp = op.path === '/mcp';
      const validBody = mcp
        ? { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: toolName, arguments: { country: 'PT' } } }
        : op.path.endsWith('/tool-calls') ? { name: toolName, arguments: { country: 'PT' } } : sample(op.body!.schema);
      // The whole body, and each field a client fills (open-shaped ones like `arguments` and `custom` included).
      const places: ((string | number)[] | 'root')[] = mcp
        ? ['root', ['params'], ['params', 'arguments'], ['params', 'arguments', 'country'], ['params', '_meta']]
        : ['root', ...stringFields(op.body!.schema)];
      if (op.path.endsWith('/tool-calls')) places.push(['arguments', 'country']);
      const attempts: { what: string; payload: Buffer }[] = [];
      for (const place of places) {
        const where = place === 'root' ? 'the body' : place.join('.');
        for (const levels of [3_000, 10_000]) {
          attempts.push({ what: `${where}: arrays ${levels} deep`, payload: withHole(validBody, place, Buffer.from(deepArrays(levels))) });
          attempts.push({ what: `${where}: objects ${levels} deep`, payload: withHole(validBody, place, Buffer.from(deepObjects(levels))) });
        }
        if (place !== 'root') attempts.push({ what: `${where}: bytes that are not UTF-8`, payload: withHole(validBody, place, NOT_UTF8) });
      }
      attempts.push({ what: 'objects as deep as the body limit allows', payload: Buffer.from(deepOfSize('objects', limit)) });
      for (const attempt of attempts) {
        const res = await send(op, attempt.payload);
        sent++;
        const problem = notRefused(op, res, attempt.payload.length, limit);
        if (problem) failures.push(`${op.method} ${op.path} — ${attempt.what}: ${problem}`);
      }
    }
    // Form bodies (the OAuth endpoints): percent-encoded bytes that are not UTF-8, and raw ones.
    for (const op of operations.filter((candidate) => candidate.body?.type === FORM)) {
      for (const [what, payload] of [['percent-encoded', Buffer.from('grant_type=client_credentials&client_id=Caf%C3%28')], ['raw', Buffer.concat([Buffer.from('grant_type=client_credentials&client_id=Caf'), Buffer.from([0xc3, 0x28])])]] as const) {
        const res = await send(op, payload, FORM);
        sent++;
        const problem = notRefused(op, res, payload.length, Infinity);
        if (problem) failures.push(`${op.method} ${op.path} — ${what} bytes that are not UTF-8: ${problem}`);
      }
    }
    expect(failures).toEqual([]);
    expect(jsonOperations.map((op) => `${op.method} ${op.path}`)).toEqual(expect.arrayContaining(['POST /mcp', 'POST /api/org/agents/{id}/tool-calls', 'POST /api/dev/tools/{tool_id}/test', 'POST /api/public/forms/{slug}/submit']));
    expect(sent).toBeGreaterThan(500);
    const errors = lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });

  it('refuses an empty change on every partial update (every PATCH, and PUT of any subset) and changes nothing', async () => {
    const partial = operations.filter((op) => op.body && (op.method === 'PATCH' || (op.method === 'PUT' && !((op.body.schema.required as string[] | undefined)?.length))));
    expect(partial.map((op) => `${op.method} ${op.path}`)).toEqual(expect.arrayContaining(['PATCH /api/org/forms/{id}', 'PUT /api/dev/tools/{tool_id}']));
    const failures: string[] = [];
    for (const op of partial) {
      // The API reference says so too: one mechanism (changes.ts), not a check in each route.
      if (op.body!.schema.minProperties !== 1) failures.push(`${op.method} ${op.path}: the body schema does not require a field (minProperties: 1)`);
      const read = operations.find((candidate) => candidate.method === 'GET' && candidate.path === op.path);
      const readData = async () => (read ? (await t.app.inject({ method: 'GET', url: url(read), headers: headersFor(read) })).json().data as unknown : undefined);
      const before = await readData();
      if (read && before === undefined) failures.push(`${op.method} ${op.path}: no record to read back (give the test one)`);
      const res = await send(op, Buffer.from('{}'));
      const body = res.json() as Json;
      if (res.statusCode !== 400 || body.code !== 'VALIDATION_ERROR' || !/must name at least one field to change: \w+/.test(String(body.error))) {
        failures.push(`${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      if (read && JSON.stringify(await readData()) !== JSON.stringify(before)) failures.push(`${op.method} ${op.path}: the record changed (updatedAt or a field)`);
    }
    expect(failures).toEqual([]);
  });
});
