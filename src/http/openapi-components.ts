import { ErrorBody } from './envelope.js';
import { nameOf } from './schema-name.js';

/**
 * Shapes the generated OpenAPI document for people and client generators, in two steps around
 * @fastify/swagger, without touching the schemas that validate requests and serialize responses:
 *
 * 1. `documentRoute` (swagger's `transform`, once per route) hands swagger a marked copy of each
 *    route's body and response schemas: every named schema (schema-name.ts) carries its name in
 *    an `x-` key, which swagger keeps while it converts the schema to OpenAPI. It also documents
 *    the 500 every operation can answer (and the CSRF 403 of each change a session cookie may make),
 *    a description for each response, and an operationId.
 * 2. `hoistNamedSchemas` (swagger's `transformObject`, once per document) moves each marked schema,
 *    as swagger converted it, to `components/schemas/<Name>` and puts a `$ref` in its place, and drops
 *    our validator's own keywords (`errorMessage`), which are not OpenAPI. Two
 *    different schemas under one name, or two operations with one operationId, stop it with an
 *    error: openapi.ts builds the document when the server starts, so the server does not start.
 */

type Json = Record<string, unknown>;

/** Carries a schema's name through swagger's conversion; never left in the document. */
const MARK = 'x-switchboard-schema-name';
/** Swagger's own key for a response's description (from @fastify/swagger's constants). */
const RESPONSE_DESCRIPTION = 'x-response-description';
const SCHEMAS = '#/components/schemas/';
const RESPONSES = '#/components/responses/';

const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'The request is invalid.',
  401: 'Credentials are missing or invalid.',
  403: 'The credentials do not allow this.',
  404: 'Not found.',
  409: 'Conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The Content-Type is not accepted.',
  422: 'A record the request refers to does not exist.',
  429: 'Too many requests: wait for Retry-After seconds.',
  500: 'Something went wrong on our side; quote the requestId to support.',
  502: 'An upstream service failed.',
  503: 'The service is unavailable.',
  504: 'An upstream service timed out.',
};
const SUCCESS_DESCRIPTIONS: Record<string, string> = { 200: 'OK.', 201: 'Created.', 204: 'No content.' };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of a schema in which every named schema carries its name in MARK. */
export function markNamedSchemas(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(markNamedSchemas);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) out[key] = markNamedSchemas(item);
  const name = nameOf(value);
  if (name !== undefined) out[MARK] = name;
  return out;
}

function describeResponse(status: string, schema: Json): string {
  if (Number(status) >= 400) return ERROR_DESCRIPTIONS[status] ?? 'The request failed.';
  return typeof schema.description === 'string' ? schema.description : (SUCCESS_DESCRIPTIONS[status] ?? 'Success.');
}

function documentResponse(status: string, response: unknown): Json {
  // Response headers are documentation of the response, not part of its body's schema.
  const { headers, ...body } = response as Json;
  const out = markNamedSchemas(body) as Json;
  if (headers !== undefined) out.headers = headers;
  out[RESPONSE_DESCRIPTION] = describeResponse(status, body);
  return out;
}

/** `GET /api/org/contacts/{id}` → `getApiOrgContactsById`: for routes that do not name their operation. */
export function operationIdFor(method: string, url: string): string {
  const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const words = url
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^[:{]([^}]+)}?$/.exec(segment);
      const text = (param ? param[1] : segment) ?? '';
      const camel = text.split(/[^A-Za-z0-9]+/).filter(Boolean).map(pascal).join('');
      return param ? `By${camel}` : camel;
    });
  return `${method.toLowerCase()}${words.join('')}`;
}

interface RouteInfo {
  schema?: unknown;
  url: string;
  route: { method: string | string[] };
}

/**
 * swagger's `transform`: the schema swagger documents a route with. Request bodies and responses
 * are marked copies; the 500 every operation can answer is added; hidden routes stay as they are.
 */
export function documentRoute({ schema, url, route }: RouteInfo): { schema?: Json; url: string } {
  if (!isObject(schema) || schema.hide === true) return { url };
  const out: Json = { ...schema };
  if (schema.body !== undefined) out.body = markNamedSchemas(schema.body);
  const responses: Json = { ...(isObject(schema.response) ? schema.response : {}) };
  // The error handler answers an unexpected failure with ErrorBody on every route, OAuth ones included,
  // and so is a 503: the database unavailable (README, "Database outages"), or the server draining.
  if (responses['500'] === undefined) responses['500'] = ErrorBody;
  if (responses['503'] === undefined) responses['503'] = UnavailableBody;
  // A change made with the console's cookie is refused 403 without its CSRF token or from another
  // site (sessions/sessions-service.ts), whatever else the route answers.
  if (responses['403'] === undefined && changesWithSessionCookie(schema, route.method)) responses['403'] = ErrorBody;
  out.response = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, documentResponse(status, response)]));
  if (typeof schema.operationId !== 'string') {
    const method = Array.isArray(route.method) ? (route.method[0] ?? 'get') : route.method;
    out.operationId = operationIdFor(method, url);
  }
  return { schema: out, url };
}

function changesWithSessionCookie(schema: Json, method: string | string[]): boolean {
  const methods = (Array.isArray(method) ? method : [method]).map((m) => m.toUpperCase());
  const sessions = Array.isArray(schema.security) && schema.security.some((requirement) => isObject(requirement) && 'consoleSession' in requirement);
  return sessions && methods.some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m));
}

/** The 503 of every operation: the error body, and when to try again. */
const UnavailableBody = {
  ...ErrorBody,
  headers: { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again.' } },
};

/** Responses every operation shares, by status: written once in components/responses (see hoistSharedResponses). */
const SHARED_RESPONSES: Record<string, string> = { 500: 'InternalError', 503: 'ServiceUnavailable' };

/**
 * The response most operations give for a shared status (the 500 and 503 documentRoute adds) moves to
 * `components/responses/<Name>` and each operation refers to it: written inline, the two cost about
 * 25 KB of the document. An operation that documents its own (the JSON-RPC errors of /mcp) keeps it.
 */
function hoistSharedResponses(paths: Json): Json {
  const responses: Json = {};
  for (const [status, name] of Object.entries(SHARED_RESPONSES)) {
    const seen = new Map<string, { response: unknown; count: number }>();
    for (const operation of operationsIn(paths)) {
      const response = (operation.responses as Json | undefined)?.[status];
      if (response === undefined) continue;
      const key = canonical(response);
      const entry = seen.get(key) ?? { response, count: 0 };
      entry.count += 1;
      seen.set(key, entry);
    }
    const common = [...seen.entries()].sort((a, b) => b[1].count - a[1].count)[0];
    if (common === undefined || common[1].count < 2) continue;
    responses[name] = common[1].response;
    for (const operation of operationsIn(paths)) {
      const own = operation.responses as Json | undefined;
      if (own?.[status] !== undefined && canonical(own[status]) === common[0]) own[status] = { $ref: `${RESPONSES}${name}` };
    }
  }
  return responses;
}

function operationsIn(paths: Json): Json[] {
  return Object.values(paths).flatMap((item) => (isObject(item) ? Object.values(item).filter(isObject) : []));
}

/** JSON with sorted keys: equal for equal schemas whatever order their keys were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? 'null';
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
}

/** Where two JSON values first differ, for an error message a person can act on. */
function firstDifference(a: unknown, b: unknown, at = '#'): string {
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (canonical(a[key]) !== canonical(b[key])) return firstDifference(a[key], b[key], `${at}/${key}`);
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const index = a.findIndex((item, i) => canonical(item) !== canonical(b[i]));
    if (index >= 0) return firstDifference(a[index], b[index], `${at}/${index}`);
  }
  return `${at}: ${JSON.stringify(a) ?? 'nothing'} vs ${JSON.stringify(b) ?? 'nothing'}`;
}

function checkOperationIds(paths: Json): void {
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      const id = isObject(operation) ? operation.operationId : undefined;
      if (typeof id !== 'string') continue;
      const where = `${method.toUpperCase()} ${path}`;
      const other = seen.get(id);
      if (other !== undefined) throw new Error(`OpenAPI: ${other} and ${where} have the same operationId "${id}".`);
      seen.set(id, where);
    }
  }
}

/** Keywords of our validator (ajv-errors), not of OpenAPI: they stay in the schemas that validate, not in the document. */
const VALIDATOR_KEYWORDS = new Set(['errorMessage']);
/** Under these a key is a name (a property's) and under DATA a value: neither is a keyword to drop. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
const DATA = new Set(['example', 'examples', 'default', 'const', 'enum']);
type Mode = 'schema' | 'names' | 'data';

/**
 * swagger's `transformObject`: every marked schema moves to `components/schemas/<Name>` and is
 * replaced by a `$ref`, innermost first, so components refer to one another too.
 */
export function hoistNamedSchemas(document: Json): Json {
  const found = new Map<string, { schema: Json; json: string }>();
  const visit = (value: unknown, mode: Mode = 'schema'): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item, mode));
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === MARK || (mode === 'schema' && VALIDATOR_KEYWORDS.has(key))) continue;
      out[key] = visit(item, mode === 'data' ? 'data' : mode === 'names' ? 'schema' : NAME_MAPS.has(key) ? 'names' : DATA.has(key) ? 'data' : 'schema');
    }
    const name = value[MARK];
    if (typeof name !== 'string') return out;
    const json = canonical(out);
    const earlier = found.get(name);
    if (earlier === undefined) found.set(name, { schema: out, json });
    else if (earlier.json !== json) {
      throw new Error(`OpenAPI: two different schemas are named ${name} (they differ at ${firstDifference(earlier.schema, out)}). Give one of them another name.`);
    }
    return { $ref: `${SCHEMAS}${name}` };
  };
  const paths = visit(document.paths ?? {}) as Json;
  checkOperationIds(paths);
  const components = isObject(document.components) ? document.components : {};
  const schemas: Json = { ...(isObject(components.schemas) ? components.schemas : {}) };
  for (const name of [...found.keys()].sort()) {
    if (Object.hasOwn(schemas, name)) throw new Error(`OpenAPI: the schema name ${name} is already taken in components/schemas.`);
    schemas[name] = found.get(name)?.schema;
  }
  const responses = { ...(isObject(components.responses) ? components.responses : {}), ...hoistSharedResponses(paths) };
  return { ...document, components: { ...components, schemas, responses }, paths };
}
