import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { dereference, isObject, refsIn, resolvePointer, type Json } from '../../test/support/openapi.js';
import { Envelope, ErrorBody, Page } from './envelope.js';
import { registerOpenApi } from './openapi.js';
import { hoistNamedSchemas, markNamedSchemas, operationIdFor } from './openapi-components.js';
import { named, nameOf } from './schema-name.js';

/**
 * Measured at 127 KB when shared schemas became components (604 KB inlined before), and at
 * 154 KB once tool calls added eleven operations (installations, agent tools, tool calls,
 * agent keys): room to grow, not to inline again. 212 KB once console accounts added thirteen
 * operations (sign-up to invitations, members), the CSV export and consent versions, and every
 * Operator API operation named the session cookie as a second security scheme. 231 KB once the developer
 * portal's apps added six operations (/api/dev/apps…: 9.3 KB of paths, 4.6 KB of schemas). 242 KB once the tool
 * page added the revisions list (1.8 KB of path, 1.9 KB of ToolRevision and its page) and the call list's filters
 * and the stats' outcomes (about 1 KB). 254 KB once model providers added five operations and the agent its
 * model (7.0 KB of paths, 5.1 KB of schemas). 267 KB once conversations added four operations (7.0 KB of paths,
 * 5.5 KB of schemas: the transcript's messages and tool calls). 290 KB (289,679 bytes) once webhooks added nine
 * operations (/api/org/webhooks…: endpoints, secret rotation, test ping, delivery log, redeliver). 312 KB once the
 * chat widget added four public operations (/api/public/chats/…: 9.6 KB of paths, 4.1 KB of schemas) and the
 * agent its chat settings (2.4 KB). 342 KB once OAuth connections added six operations (an installation's connection
 * and a developer's test account: start, status, disconnect) and an oauth2 tool's provider settings (the input, the
 * answer with `hasClientSecret`, a revision's), and each installation its connection's status. 352 KB once MCP hosts'
 * OAuth added the consent page's two operations and an agent's connected apps (two), and the token endpoint its
 * authorization code and refresh grants. 368 KB once hand-off added six operations (the Inbox's take over, release,
 * close and live events; a visitor's request for a person and event stream), an agent its hand-off settings, and
 * conversations and their messages a status, an assignee and authors. 373 KB once lead notifications added a form's
 * `notify` and a member's notification settings (two operations). 382 KB once the audit log added its two pages
 * (/api/org/audit-log, /api/dev/audit-log: 4.5 KB of paths, 2 KB of schemas) and the actions it records that had no
 * route, sign out everywhere and a member's role (2.4 KB). 388 KB with privacy's erasing and exporting a person (two
 * operations, the export document: 2.5 KB) and an opportunity's `contactErased`. 396 KB with an organization's
 * `retention` (its schema in the organization's answer and patch) and every operation's declared `security` (the
 * linters' rule, src/http/openapi-lint.test.ts).
 */
const SIZE_BUDGET_BYTES = 396_000;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  where: string;
  operation: Json;
}

/** Every operation, its responses read through their `$ref`s (components/responses) as a client generator does. */
function operationsOf(document: Json): Operation[] {
  const resolved = (responses: Json) =>
    Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, isObject(response) && typeof response.$ref === 'string' ? resolvePointer(document, response.$ref) : response]));
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation: { ...(operation as Json), responses: resolved((operation as Json).responses as Json) } })),
  );
}

/** The JSON schemas of an operation's request and response bodies. */
function bodySchemas(operation: Json): { what: string; schema: Json }[] {
  const out: { what: string; schema: Json }[] = [];
  const content = (isObject(operation.requestBody) ? operation.requestBody.content : undefined) as Record<string, Json> | undefined;
  for (const [type, media] of Object.entries(content ?? {})) out.push({ what: `request ${type}`, schema: media.schema as Json });
  for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
    for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) out.push({ what: `${status} ${type}`, schema: media.schema as Json });
  }
  return out;
}

describe('shared responses', () => {
  it('are written once in components/responses, and an operation documenting its own keeps it', () => {
    const operation = (responses: Json) => ({ responses });
    const ours = { description: 'The service is unavailable.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const own = { description: 'A JSON-RPC error.', content: { 'application/json': { schema: { $ref: '#/components/schemas/McpError' } } } };
    const document = hoistNamedSchemas({ paths: { '/a': { get: operation({ 503: ours }) }, '/b': { post: operation({ 503: { ...ours } }) }, '/mcp': { post: operation({ 503: own }) } } });
    const paths = document.paths as Record<string, Record<string, { responses: Json }>>;
    expect(paths['/a']?.get?.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
    expect(paths['/b']?.post?.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
    expect(paths['/mcp']?.post?.responses['503']).toEqual(own);
    expect((document.components as Json).responses).toEqual({ ServiceUnavailable: ours });
  });
});

describe('the validator\'s own keywords', () => {
  it('are dropped from the document, not a property or an example of that name', () => {
    const schema = { type: 'object', errorMessage: 'must be a code', properties: { errorMessage: { type: 'string', errorMessage: 'x' } }, examples: [{ errorMessage: 'kept' }] };
    const paths = hoistNamedSchemas({ paths: { '/a': { get: { responses: { 200: { content: { 'application/json': { schema } } } } } } } }).paths as Json;
    expect(paths).toEqual({ '/a': { get: { responses: { 200: { content: { 'application/json': { schema: { type: 'object', properties: { errorMessage: { type: 'string' } }, examples: [{ errorMessage: 'kept' }] } } } } } } } });
  });
});

describe('schema names', () => {
  it('are PascalCase', () => {
    expect(() => named('contact', Type.Object({}))).toThrow(/PascalCase/);
    expect(() => named('Contact-Detail', Type.Object({}))).toThrow(/PascalCase/);
  });

  it('stay with unchanged copies and leave derived schemas', () => {
    const Thing = named('Thing', Type.Object({ a: Type.String(), b: Type.Integer() }));
    expect(nameOf(Thing)).toBe('Thing');
    expect(nameOf(Type.Optional(Thing))).toBe('Thing');
    expect(nameOf(Type.Partial(Thing))).toBeUndefined();
    expect(nameOf({ ...Thing, description: 'another' })).toBeUndefined();
    expect(nameOf(Type.Object({ a: Type.String() }))).toBeUndefined();
  });

  it('name envelopes and pages after what they hold', () => {
    const Thing = named('Thing', Type.Object({ a: Type.String() }));
    expect(nameOf(Page(Thing))).toBe('ThingPage');
    expect(nameOf(Envelope(Page(Thing)))).toBe('ThingPageResponse');
    expect(nameOf(Envelope(Type.Object({ a: Type.String() })))).toBeUndefined();
    expect(nameOf(ErrorBody)).toBe('ErrorBody');
  });

  it('are hoisted to components, and one name for two different schemas is refused', () => {
    const one = named('Thing', Type.Object({ a: Type.String() }));
    const same = named('Thing', Type.Object({ a: Type.String() }));
    const other = named('Thing', Type.Object({ a: Type.Integer() }));
    const hoisted = hoistNamedSchemas({ paths: markNamedSchemas({ x: [one, Type.Array(same)] }) as Json, components: {} });
    expect(hoisted.paths).toEqual({ x: [{ $ref: '#/components/schemas/Thing' }, { type: 'array', items: { $ref: '#/components/schemas/Thing' } }] });
    expect((hoisted.components as Json).schemas).toEqual({ Thing: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } });
    expect(() => hoistNamedSchemas({ paths: markNamedSchemas({ x: [one, other] }) as Json })).toThrow(/two different schemas are named Thing .*#\/properties\/a\/type/);
  });

  it('stop the server from starting when two different schemas claim one name', async () => {
    const app = Fastify({ logger: false });
    await registerOpenApi(app, { publicUrl: 'http://localhost:3000' } as Config, '0.0.0');
    app.get('/a', { schema: { response: { 200: named('Clash', Type.Object({ a: Type.String() })) } } }, async () => ({ a: 'x' }));
    app.get('/b', { schema: { response: { 200: named('Clash', Type.Object({ b: Type.String() })) } } }, async () => ({ b: 'x' }));
    await expect(app.ready()).rejects.toThrow(/two different schemas are named Clash/);
    await app.close().catch(() => undefined);
  });

  it('make an operationId from method and path when a route has none', () => {
    expect(operationIdFor('GET', '/api/org/contacts/:id')).toBe('getApiOrgContactsById');
    expect(operationIdFor('DELETE', '/api/org/pipelines/{id}/stages/{stageId}')).toBe('deleteApiOrgPipelinesByIdStagesByStageId');
  });
});

describe('the API reference, as a client generator reads it', () => {
  let t: TestContext;
  let raw: string;
  let document: Json;
  let schemas: Record<string, Json>;
  beforeAll(async () => {
    t = await createTestContext('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    raw = res.body;
    document = res.json() as Json;
    schemas = (document.components as Json).schemas as Record<string, Json>;
  });
  afterAll(async () => t.close());

  it(`stays under ${SIZE_BUDGET_BYTES / 1000} KB`, () => {
    expect(Buffer.byteLength(raw)).toBeLessThan(SIZE_BUDGET_BYTES);
  });

  it('names the shared schemas once, in components', () => {
    for (const name of ['ErrorBody', 'ErrorCode', 'ToolRecord', 'ToolRecordPage', 'ToolRecordResponse', 'CatalogTool', 'Contact', 'ContactPageResponse', 'Form', 'PublicFormConfig', 'Deleted', 'OAuthError']) {
      expect(schemas, name).toHaveProperty(name);
    }
    expect(Object.keys(schemas).every((name) => /^[A-Z][A-Za-z0-9]*$/.test(name))).toBe(true);
    expect(raw).not.toContain('x-switchboard-schema-name');
    expect(raw).not.toContain('"errorMessage"');
  });

  it('has every $ref point at something that exists', () => {
    const dangling = refsIn(document).filter(({ ref }) => resolvePointer(document, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('uses every component schema', () => {
    const used = new Set<string>();
    const visit = (value: unknown): void => {
      for (const { ref } of refsIn(value)) {
        if (used.has(ref)) continue;
        used.add(ref);
        visit(resolvePointer(document, ref));
      }
    };
    visit(document.paths);
    const unused = Object.keys(schemas).filter((name) => !used.has(`#/components/schemas/${name}`));
    expect(unused).toEqual([]);
  });

  it('has no $ref cycles: every schema can be walked to the end', () => {
    for (const [name, schema] of Object.entries(schemas)) expect(() => dereference(document, schema, [`#/components/schemas/${name}`]), name).not.toThrow();
    expect(() => dereference(document, document.paths)).not.toThrow();
  });

  it('gives every operation a unique operationId, a summary and a description', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(50);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { where, operation } of operations) {
      expect(String(operation.summary ?? '').length, `${where} summary`).toBeGreaterThan(5);
      expect(String(operation.description ?? '').length, `${where} description`).toBeGreaterThan(20);
    }
  });

  it('declares success and error responses with schemas, 500 and 503 (with Retry-After) on every operation', () => {
    for (const { where, operation } of operationsOf(document)) {
      const responses = operation.responses as Record<string, Json>;
      const statuses = Object.keys(responses).map(Number);
      expect(statuses.some((status) => status >= 200 && status < 400), `${where} success`).toBe(true);
      expect(statuses, where).toContain(500);
      expect(statuses, where).toContain(503);
      expect(Object.keys((responses['503']?.headers ?? {}) as Json), where).toContain('Retry-After');
      for (const [status, response] of Object.entries(responses)) {
        expect(String(response.description ?? ''), `${where} ${status} description`).not.toBe('');
        if (Number(status) >= 400) expect((response.content as Record<string, Json> | undefined)?.['application/json']?.schema, `${where} ${status}`).toBeDefined();
      }
      const error500 = responses['500']?.content as Record<string, Json>;
      // The MCP endpoint answers every failure, ours included, as a JSON-RPC error.
      const shape = where.endsWith(' /mcp') ? 'McpError' : 'ErrorBody';
      expect(error500['application/json']?.schema, where).toEqual({ $ref: `#/components/schemas/${shape}` });
    }
  });

  it('refers to a named schema for every request and response body', () => {
    const inline = operationsOf(document).flatMap(({ where, operation }) =>
      bodySchemas(operation).filter(({ schema }) => typeof schema.$ref !== 'string').map(({ what }) => `${where} ${what}`),
    );
    expect(inline).toEqual([]);
  });

  it('documents 503 on /readyz, and Retry-After and RateLimit-* on the 429s of the rate-limited public routes', () => {
    const readyz = (document.paths as Record<string, Record<string, Json>>)['/readyz']?.get?.responses as Record<string, Json>;
    expect(readyz['503']).toBeDefined();
    const limited = operationsOf(document).filter(({ where }) => where.includes('/api/public/forms/'));
    expect(limited.map(({ where }) => where).sort()).toEqual(['GET /api/public/forms/{slug}', 'POST /api/public/forms/{slug}/submit']);
    for (const { where, operation } of limited) {
      const responses = operation.responses as Record<string, Json>;
      expect(Object.keys((responses['429']?.headers ?? {}) as Json).sort(), where).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
      expect(Object.keys((responses['200']?.headers ?? {}) as Json), where).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
    }
  });

  it('is what Swagger UI at /docs loads', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    expect(initializer.body).toContain("resolveUrl('./json')");
    const fromUi = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(fromUi.statusCode).toBe(200);
    expect(fromUi.headers['content-type']).toMatch(/^application\/json/);
    expect(fromUi.json()).toEqual(document);
  });
});
