import { createMcpAuthRepo } from '../mcp-auth/repo.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { randomBase62 } from '../lib/ids.js';
import { APPS_NEED_A_SESSION, NOT_A_DEVELOPER } from '../oauth/bearer.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { developerSession, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { createAgent, createCustomField, createForm, createPipeline } from '../../test/support/form-factories.js';
import { BRAND, install } from '../../test/support/invocation-factories.js';
import { documentedOperations, isObject, sample, type DocumentedOperation, type Json } from '../../test/support/openapi.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, fixedResolver, publishTool } from '../../test/support/tools-factories.js';

/**
 * Route security, one table for every operation in /openapi.json (the pattern of Unkey's `.security`
 * tests). Each operation's `security` requirement says who may call it; from it this file derives and
 * sends, to every operation:
 *   - no credentials                → the documented 401 in the API's own error shape;
 *   - a credential of the wrong kind → 401, never 2xx;
 *   - a token without the route's scope (Developer API) → 403 INSUFFICIENT_SCOPE naming the scope;
 *   - another tenant's ids          → the same 404 as a missing id, and nothing written;
 *   - a console session without its CSRF token, on a change → 403 FORBIDDEN, nothing written (an
 *     operator's session on the Operator API, a developer's on the Developer API);
 *   - on the Developer API, an operator's session without a developer account → 403 FORBIDDEN, and on
 *     its session-only operations (apps) a bearer credential → 403 FORBIDDEN, nothing written.
 * The chat widget's session operations (`chatSession`) are sent to a live chat from its allowed Origin, so
 * the refusal is the session's (401, no challenge: docs/chat-widget.md); their tenancy is src/chat/refusals.test.ts's.
 * Nothing here names a route: a new route is covered the moment it is in the document. A new kind of
 * id needs a row in OWNED_RESOURCES, and the tenancy test fails naming it until it has one.
 */

type Headers = Record<string, string>;

/** One organization and one developer: who owns things, and who tries to reach another's. */
interface Tenant {
  org: OrgWithKey;
  developer: DeveloperWithApp & { auth: Headers };
  /** The developer signed in to the console: its cookie, and with its CSRF token (`auth`). */
  developerSession: { cookie: Headers; auth: Headers };
}

/** The schemes of the document's components.securitySchemes, as a caller meets them. */
type Scheme = 'oauth2' | 'orgApiKey' | 'consoleSession' | 'agentKey' | 'mcpOAuth' | 'chatSession';
/** And the OAuth endpoints' client authentication: HTTP Basic, or none (client_id in the body), answered as isOAuthEndpoint says. */
const SCHEMES: readonly string[] = [...(['oauth2', 'orgApiKey', 'consoleSession', 'agentKey', 'mcpOAuth', 'chatSession'] satisfies Scheme[]), 'clientSecretBasic'];
/** The bearer credential each scheme takes (an operation accepting org keys is not refused one); a session takes none. */
const ACCEPTED_AS: Record<Scheme, string | undefined> = { oauth2: 'a developer access token', orgApiKey: 'an org API key', agentKey: 'an agent key', mcpOAuth: 'an MCP host\'s access token', consoleSession: undefined, chatSession: 'a visitor session' };
/** The site the live chat of the visitor operations is embedded on. */
const SITE = 'https://shop.example.com';

/** The Developer API's operations a signed-in session may call (all but the OAuth endpoints). */
const isDeveloperApi = (op: DocumentedOperation) => op.path.startsWith('/api/dev/') && !op.path.startsWith('/api/dev/oauth/');
/** The Developer API's session-only operations (apps: an access token cannot make apps). */
const isSessionOnlyDeveloperApi = (op: DocumentedOperation) => isDeveloperApi(op) && op.security.length > 0 && op.security.every((requirement) => Object.keys(requirement).join() === 'consoleSession');

/** Public operations that authenticate an OAuth client in the body instead (RFC 6749 §2.3): they answer in RFC 6749's shape. */
const isOAuthEndpoint = (op: DocumentedOperation) => op.path.startsWith('/api/dev/oauth/');

/** Public when the document states no requirement, or an empty one (`{}`: credentials optional, GET /api/auth/session). */
const isPublic = (op: DocumentedOperation) => op.security.length === 0 || op.security.some((requirement) => Object.keys(requirement).length === 0);
const schemesOf = (op: DocumentedOperation) => op.security.flatMap((requirement) => Object.keys(requirement));
const isVisitorSession = (op: DocumentedOperation) => schemesOf(op).includes('chatSession');
const changes = (op: DocumentedOperation) => op.method !== 'GET';

/** A body the schema accepts, so a request is refused for its credentials or ids alone. */
function validBody(op: DocumentedOperation): unknown {
  if (!op.body) return undefined;
  const body = sample(op.body.schema);
  // A partial update (minProperties: 1) with nothing required: name its first field.
  const properties = (op.body.schema.properties ?? {}) as Record<string, Json>;
  const [first] = Object.keys(properties);
  if (isObject(body) && Object.keys(body).length === 0 && op.body.schema.minProperties && first) body[first] = sample(properties[first]!);
  return body;
}

/**
 * How to make, in a tenant, the resource a path id names — keyed by the id's kind, the prefix of the
 * parameter's documented example (`ct` of `ct_3kTM…`). A factory returns the ids it made by kind, so a
 * nested path (`/agents/{id}/keys/{keyId}`) gets the agent that owns the key.
 */
type Factory = (t: TestContext, owner: Tenant) => Promise<Record<string, string>>;
const OWNED_RESOURCES: Record<string, Factory> = {
  tool: async (t, owner) => ({ tool: (await createTool(t.app, owner.developer.auth)).id }),
  usr: async (_t, owner) => ({ usr: owner.org.operator.id }),
  inv: async (t, owner) => ({ inv: (await created(t, owner, '/api/org/invitations', { email: uniqueEmail('invitee') })).id }),
  key: async (t, owner) => ({ key: (await created(t, owner, '/api/org/api-keys', { name: 'Zapier' })).id }),
  agt: async (t, owner) => ({ agt: (await createAgent(t.app, owner.org)).id }),
  akey: async (t, owner) => {
    const agt = (await createAgent(t.app, owner.org)).id;
    return { agt, akey: (await created(t, owner, `/api/org/agents/${agt}/keys`, { name: 'MCP' })).id };
  },
  cf: async (t, owner) => ({ cf: (await createCustomField(t.app, owner.org)).id }),
  pipe: async (t, owner) => pipelineWithStage(t, owner),
  stg: async (t, owner) => pipelineWithStage(t, owner),
  ct: async (t, owner) => ({ ct: (await created(t, owner, '/api/org/contacts', { email: uniqueEmail('lead') })).id }),
  opp: async (t, owner) => {
    const ct = (await created(t, owner, '/api/org/contacts', { email: uniqueEmail('deal') })).id;
    return { opp: (await created(t, owner, '/api/org/opportunities', { title: 'Deal', contactId: ct })).id };
  },
  inst: async (t, owner) => {
    const tool = await createTool(t.app, owner.developer.auth);
    await publishTool(t.app, owner.developer.auth, tool.id);
    return { inst: (await install(t.app, owner.org, { toolId: tool.id })).id };
  },
  frm: async (t, owner) => ({ frm: (await createForm(t.app, owner.org)).id }),
  mp: async (t, owner) => ({ mp: (await created(t, owner, '/api/org/model-providers', { name: 'OpenAI', kind: 'openai', apiKey: 'sk-owned' })).id }),
  // An agent with a model (a conversation needs one), and its conversation; no model is ever called.
  conv: async (t, owner) => {
    const agt = (await createAgent(t.app, owner.org)).id;
    const mp = (await created(t, owner, '/api/org/model-providers', { name: 'OpenAI', kind: 'openai', apiKey: 'sk-owned' })).id;
    const set = await t.app.inject({ method: 'PATCH', url: `/api/org/agents/${agt}`, headers: owner.org.auth, payload: { model: { providerId: mp, model: 'gpt-4.1-mini', instructions: '' } } });
    if (set.statusCode !== 200) throw new Error(`PATCH /api/org/agents/${agt}: ${set.statusCode} ${set.body}`);
    return { agt, conv: (await created(t, owner, `/api/org/agents/${agt}/conversations`, {})).id };
  },
  // A host that does not resolve: saved (it may not be deployed yet), and a ping to it never connects anywhere.
  wh: async (t, owner) => ({ wh: (await created(t, owner, '/api/org/webhooks', { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] })).id }),
  whd: async (t, owner) => {
    const wh = (await created(t, owner, '/api/org/webhooks', { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] })).id;
    const ping = await t.app.inject({ method: 'POST', url: `/api/org/webhooks/${wh}/test`, headers: owner.org.auth });
    if (ping.statusCode !== 200) throw new Error(`POST /api/org/webhooks/${wh}/test: ${ping.statusCode} ${ping.body}`);
    return { wh, whd: (ping.json() as { data: { id: string } }).data.id };
  },
  // A connected MCP host of an agent: written as an approval writes it (the approval itself needs a person's session).
  mgr: async (t, owner) => {
    const agt = (await createAgent(t.app, owner.org)).id;
    const mgr = `mgr_${randomBase62(20)}`;
    await createMcpAuthRepo(t.database.db).insertGrant({
      id: mgr, org_id: owner.org.orgId, agent_id: agt, client_id: 'mcpc_owned', client_name: 'Owned host', user_id: owner.org.operator.id,
      created_at: t.clock.now().toISOString(), last_used_at: null, revoked_at: null,
    });
    return { agt, mgr };
  },
  // A new app each time (made as the portal makes one), so no refused call can touch the app whose tokens the file uses.
  app: async (t, owner) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/dev/apps', headers: owner.developerSession.auth, payload: { name: 'Owned', scopes: ['tools:read'] } });
    if (res.statusCode !== 201) throw new Error(`POST /api/dev/apps: ${res.statusCode} ${res.body}`);
    return { app: (res.json() as { data: { id: string } }).data.id };
  },
};

const uniqueEmail = (who: string) => `${who}-${randomBase62(8).toLowerCase()}@example.com`;

/** POST `payload` to `url` as the owner's org; the created record's data. */
async function created(t: TestContext, owner: Tenant, url: string, payload: Json): Promise<{ id: string; [field: string]: unknown }> {
  const res = await t.app.inject({ method: 'POST', url, headers: owner.org.auth, payload });
  if (res.statusCode !== 201) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { id: string; [field: string]: unknown } }).data;
}

/** A chat that answers (its agent has a model, never called here) on SITE: its public id. */
async function liveChat(t: TestContext, owner: Tenant): Promise<string> {
  const agent = (await createAgent(t.app, owner.org)).id;
  const providerId = (await created(t, owner, '/api/org/model-providers', { name: 'OpenAI', kind: 'openai', apiKey: 'sk-chat' })).id;
  const res = await t.app.inject({ method: 'PATCH', url: `/api/org/agents/${agent}`, headers: owner.org.auth, payload: { model: { providerId, model: 'gpt-4.1-mini', instructions: '' }, chat: { enabled: true, allowedOrigins: [SITE] } } });
  if (res.statusCode !== 200) throw new Error(`PATCH /api/org/agents/${agent}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { chat: { chatId: string } } }).data.chat.chatId;
}

async function pipelineWithStage(t: TestContext, owner: Tenant) {
  const pipeline = await createPipeline(t.app, owner.org, ['New', 'Won']);
  return { pipe: pipeline.id, stg: pipeline.stages[1]!.id };
}

/** Ids for every path parameter of `op`, made in `owner`; a kind with no factory is named in the error. */
async function ownedIds(t: TestContext, owner: Tenant, op: DocumentedOperation): Promise<Record<string, string>> {
  const byKind: Record<string, string> = {};
  // The last parameter first: its factory also makes the parents it needs.
  for (const parameter of [...op.pathParameters].reverse()) {
    if (byKind[parameter.kind]) continue;
    const factory = OWNED_RESOURCES[parameter.kind];
    if (!factory) throw new Error(`no factory for ids of kind "${parameter.kind}" ({${parameter.name}}, example ${parameter.example}): add one to OWNED_RESOURCES`);
    for (const [kind, id] of Object.entries(await factory(t, owner))) byKind[kind] ??= id;
  }
  return Object.fromEntries(op.pathParameters.map((parameter) => [parameter.name, byKind[parameter.kind]!]));
}

/** The path with its parameters filled: `ids` by name, else each parameter's documented example (an id nobody has). */
function urlOf(op: DocumentedOperation, ids: Record<string, string> = {}): string {
  return op.pathParameters.reduce((path, p) => path.replace(`{${p.name}}`, encodeURIComponent(ids[p.name] ?? (p.example || 'missing'))), op.path);
}

function send(t: TestContext, op: DocumentedOperation, headers: Headers, ids?: Record<string, string>) {
  const body = validBody(op);
  const payload = body === undefined ? undefined : op.body?.type === 'application/x-www-form-urlencoded' ? new URLSearchParams(body as Headers).toString() : JSON.stringify(body);
  return t.app.inject({
    method: op.method,
    url: urlOf(op, ids),
    // /mcp answers 406 to a client that cannot read both of its response types; every other route ignores it.
    headers: { accept: 'application/json, text/event-stream', ...(payload !== undefined ? { 'content-type': op.body!.type } : {}), ...headers },
    ...(payload !== undefined ? { payload } : {}),
  });
}

/** What is wrong with a 401, in the shape the operation's API answers in; undefined when right. */
function wrong401(op: DocumentedOperation, res: LightMyRequestResponse, codes: readonly string[]): string | undefined {
  if (res.statusCode !== 401) return `${res.statusCode} instead of 401: ${res.body.slice(0, 200)}`;
  if (!op.statuses.includes(401)) return 'answers 401 but does not document it';
  const body = res.json() as Json;
  if (schemesOf(op).includes('agentKey')) {
    const error = body.error as Json | undefined;
    if (body.jsonrpc !== '2.0' || typeof error?.code !== 'number' || typeof error.message !== 'string') return `not a JSON-RPC error: ${res.body.slice(0, 200)}`;
  } else if (body.success !== false || !codes.includes(String(body.code)) || typeof body.error !== 'string') {
    return `not ${codes.join(' or ')}: ${res.body.slice(0, 200)}`;
  }
  // Every bearer API says how to authenticate (RFC 6750 §3); a cookie-only route has no challenge to give, nor
  // the chat widget's visitor (a browser with no credential to retry with, only a new chat to start).
  const bearer = schemesOf(op).some((scheme) => scheme !== 'consoleSession' && scheme !== 'chatSession');
  if (bearer && !/^Bearer realm="switchboard"/.test(String(res.headers['www-authenticate']))) return `no WWW-Authenticate challenge: ${String(res.headers['www-authenticate'])}`;
  return undefined;
}

describe.each(testDialects())('route security of every documented operation (%s)', (dialect) => {
  let t: TestContext;
  /** Owns what the others try to reach; also holds the console session and the agent key. */
  let a: Tenant;
  let b: Tenant;
  let session: { cookie: string; csrfToken: string };
  let agentKey: Headers;
  /** A live chat of tenant a, and the Origin its visitor operations are sent from. */
  let chat: { ids: Record<string, string>; headers: Headers };
  let operations: DocumentedOperation[];
  let documentCount: number;
  let scopes: string[];

  async function signIn(email: string): Promise<{ cookie: string; csrfToken: string }> {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: 'correct horse battery' } });
    if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: (res.json() as { data: { csrfToken: string } }).data.csrfToken };
  }

  async function tenant(): Promise<Tenant> {
    const org = await createOrgWithKey(t.database, t.clock);
    const developer = await developerSession(t.database, t.clock, t.app);
    // A CLI-made developer is a person who signs in with the same email and password.
    const signed = await signIn(developer.developer.email);
    return { org, developer, developerSession: { cookie: { cookie: signed.cookie }, auth: { cookie: signed.cookie, 'x-csrf-token': signed.csrfToken } } };
  }

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
    [a, b] = [await tenant(), await tenant()];
    session = await signIn(a.org.operator.email);
    const agent = await createAgent(t.app, a.org);
    agentKey = { authorization: `Bearer ${String((await created(t, a, `/api/org/agents/${agent.id}/keys`, { name: 'MCP' })).key)}` };
    chat = { ids: { chat_id: await liveChat(t, a) }, headers: { origin: SITE } };
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
    operations = documentedOperations(document);
    documentCount = Object.values(document.paths as Record<string, Json>).reduce((n, item) => n + Object.keys(item).filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key)).length, 0);
    const oauth2 = (document.components as { securitySchemes: { oauth2: { flows: { clientCredentials: { scopes: Json } } } } }).securitySchemes.oauth2;
    scopes = Object.keys(oauth2.flows.clientCredentials.scopes);
  });
  afterAll(async () => t?.close());

  it('reads every operation, each public or under schemes this file knows', async () => {
    expect(operations.length).toBe(documentCount);
    expect(operations.length).toBeGreaterThan(80);
    const unknown = operations.flatMap((op) => schemesOf(op).filter((scheme) => !SCHEMES.includes(scheme)).map((scheme) => `${op.name}: ${scheme}`));
    expect(unknown, 'a new security scheme: teach this file what its refusals look like').toEqual([]);
    // "Nothing written" compares snapshots: they must see the tables (PostgreSQL's included).
    const snapshot = await databaseSnapshot(t.database);
    expect(Object.keys(snapshot)).toEqual(expect.arrayContaining(['contacts', 'org_api_keys', 'sessions', 'tools']));
    expect(snapshot.sessions!.length).toBeGreaterThan(0);
  });

  it('without credentials: every protected operation answers its documented 401; public ones need none', async () => {
    const failures: string[] = [];
    let visited = 0;
    for (const op of operations) {
      const res = isVisitorSession(op) ? await send(t, op, chat.headers, chat.ids) : await send(t, op, {});
      visited++;
      let problem: string | undefined;
      if (isOAuthEndpoint(op)) {
        // The client's credentials are missing from the body: RFC 6749 §5.2's error object, documented.
        const body = res.json() as Json;
        if (![400, 401].includes(res.statusCode) || !op.statuses.includes(res.statusCode)) problem = `${res.statusCode}: ${res.body.slice(0, 200)}`;
        else if (typeof body.error !== 'string' || typeof body.error_description !== 'string' || 'success' in body) problem = `not RFC 6749's shape: ${res.body.slice(0, 200)}`;
      } else if (isPublic(op)) {
        // A public operation may refuse what it is sent (sign-in: a wrong password is 401), never ask for a credential.
        const challenged = res.statusCode === 401 && res.headers['www-authenticate'] !== undefined;
        if (challenged || res.statusCode >= 500 || !op.statuses.includes(res.statusCode)) problem = `public, but ${res.statusCode}: ${res.body.slice(0, 200)}`;
      } else {
        problem = wrong401(op, res, ['UNAUTHORIZED']);
      }
      if (problem) failures.push(`${op.name}: ${problem}`);
    }
    expect(failures).toEqual([]);
    expect(visited).toBe(documentCount);
  });

  it('with a credential of the wrong kind: 401 (INVALID_TOKEN or UNAUTHORIZED), never 2xx, nothing written', async () => {
    const developerToken = () => a.developer.auth;
    const orgKey = () => a.org.auth;
    // What each scheme's caller might wrongly hold: the other APIs' bearer credentials.
    const WRONG_KIND: Record<Scheme, { what: string; headers: () => Headers }[]> = {
      oauth2: [{ what: 'an org API key', headers: orgKey }, { what: 'an agent key', headers: () => agentKey }],
      orgApiKey: [{ what: 'a developer access token', headers: developerToken }, { what: 'an agent key', headers: () => agentKey }],
      agentKey: [{ what: 'an org API key', headers: orgKey }, { what: 'a developer access token', headers: developerToken }],
      mcpOAuth: [{ what: 'an org API key', headers: orgKey }, { what: 'a developer access token', headers: developerToken }],
      consoleSession: [{ what: 'an org API key', headers: orgKey }, { what: 'a developer access token', headers: developerToken }],
      chatSession: [{ what: 'an org API key', headers: orgKey }, { what: 'an agent key', headers: () => agentKey }],
    };
    const failures: string[] = [];
    const protectedOps = operations.filter((op) => !isPublic(op));
    for (const op of protectedOps) {
      // An operation several schemes accept is refused only what none of them accepts.
      const accepted = schemesOf(op) as Scheme[];
      const acceptedKinds = accepted.map((scheme) => ACCEPTED_AS[scheme]);
      const candidates = accepted.flatMap((scheme) => WRONG_KIND[scheme]).filter((c, i, all) => !acceptedKinds.includes(c.what) && all.findIndex((other) => other.what === c.what) === i);
      for (const candidate of candidates) {
        const before = await databaseSnapshot(t.database);
        const res = isVisitorSession(op) ? await send(t, op, { ...chat.headers, ...candidate.headers() }, chat.ids) : await send(t, op, candidate.headers());
        // Apps are made from a session: a bearer credential there is refused as such (403), not as a missing one.
        const refusal = isSessionOnlyDeveloperApi(op) ? wrongRefusal(op, res, 403, 'FORBIDDEN', APPS_NEED_A_SESSION) : wrong401(op, res, ['INVALID_TOKEN', 'UNAUTHORIZED']);
        const problem = refusal ?? nothingWritten(before, await databaseSnapshot(t.database));
        if (problem) failures.push(`${op.name} with ${candidate.what}: ${problem}`);
      }
    }
    expect(failures).toEqual([]);
    expect(protectedOps.length).toBeGreaterThan(70);
  });

  it('with a token lacking the route\'s scope: 403 INSUFFICIENT_SCOPE naming it (Developer API)', async () => {
    const failures: string[] = [];
    const scoped = operations.filter((op) => schemesOf(op).includes('oauth2'));
    for (const op of scoped) {
      const needed = op.security.flatMap((requirement) => requirement.oauth2 ?? []);
      // Every other scope: the one the route declares is the only thing missing.
      const token = await getAccessToken(t.app, a.developer.app, scopes.filter((scope) => !needed.includes(scope)).join(' '));
      const res = await send(t, op, { authorization: `Bearer ${token}` });
      const body = res.json() as Json;
      const challenge = String(res.headers['www-authenticate']);
      if (res.statusCode !== 403 || !op.statuses.includes(403) || body.code !== 'INSUFFICIENT_SCOPE' || !needed.every((scope) => String(body.error).includes(scope) && challenge.includes(`scope="${scope}"`))) {
        failures.push(`${op.name} (needs ${needed.join(' ')}): ${res.statusCode} ${res.body.slice(0, 200)} — ${challenge}`);
      }
    }
    expect(failures).toEqual([]);
    expect(scoped.length).toBeGreaterThan(5);
  });

  it('with another tenant\'s ids: the same 404 as a missing id, and nothing written', async () => {
    const failures: string[] = [];
    // A chat id is public (the embed snippet shows it): another chat's visitor session is a 401 (src/chat/refusals.test.ts).
    const withIds = operations.filter((op) => !isPublic(op) && op.pathParameters.length > 0 && !isVisitorSession(op));
    for (const op of withIds) {
      // As the other tenant, with the credential its scheme takes (the Developer API's token holds every scope).
      const asB = isSessionOnlyDeveloperApi(op) ? b.developerSession.auth : schemesOf(op).includes('oauth2') ? b.developer.auth : b.org.auth;
      let ids: Record<string, string>;
      try {
        ids = await ownedIds(t, a, op);
      } catch (error) {
        failures.push(`${op.name}: ${(error as Error).message}`);
        continue;
      }
      const before = await databaseSnapshot(t.database);
      const theirs = await send(t, op, asB, ids);
      const written = nothingWritten(before, await databaseSnapshot(t.database));
      const missing = await send(t, op, asB);
      // Status, code and message (an id quoted in it put back in its parameter's place); requestIds differ.
      const answer = (res: LightMyRequestResponse, values: Record<string, string>) => {
        const { code, error } = res.json() as Json;
        return `${res.statusCode} ${String(code)} ${Object.entries(values).reduce((text, [name, value]) => text.replaceAll(value, `{${name}}`), String(error))}`;
      };
      const examples = Object.fromEntries(op.pathParameters.map((p) => [p.name, p.example]));
      if (missing.statusCode !== 404 || !op.statuses.includes(404)) failures.push(`${op.name}: a missing id answers ${missing.statusCode}, not a documented 404: ${missing.body.slice(0, 200)}`);
      else if (answer(theirs, ids) !== answer(missing, examples)) failures.push(`${op.name}: another tenant's id answers ${theirs.statusCode} ${theirs.body.slice(0, 200)}; a missing one ${missing.body.slice(0, 200)}`);
      if (written) failures.push(`${op.name}: another tenant's call ${written}`);
    }
    expect(failures).toEqual([]);
    expect(withIds.length).toBeGreaterThan(40);
  });

  /**
   * Each operation sent, on ids tenant a owns, with the headers `headersOf` gives: what `check` finds wrong
   * with the answer, and whether the call wrote anything; one failure line each.
   */
  async function refusalFailures(ops: DocumentedOperation[], headersOf: (op: DocumentedOperation) => Headers, check: (op: DocumentedOperation, res: LightMyRequestResponse) => string | undefined): Promise<string[]> {
    const failures: string[] = [];
    for (const op of ops) {
      let ids: Record<string, string>;
      try {
        ids = await ownedIds(t, a, op);
      } catch (error) {
        failures.push(`${op.name}: ${(error as Error).message}`);
        continue;
      }
      const before = await databaseSnapshot(t.database);
      const res = await send(t, op, headersOf(op), ids);
      const problem = check(op, res);
      if (problem) failures.push(`${op.name}: ${problem}`);
      const written = nothingWritten(before, await databaseSnapshot(t.database));
      if (written) failures.push(`${op.name}: the refused call ${written}`);
    }
    return failures;
  }

  it('with a console session but no X-CSRF-Token, a change: 403 FORBIDDEN and nothing written', async () => {
    const cookieChanges = operations.filter((op) => schemesOf(op).includes('consoleSession') && changes(op));
    // The session of the person the operation is for: the developer's on the Developer API.
    const failures = await refusalFailures(cookieChanges, (op) => (isDeveloperApi(op) ? a.developerSession.cookie : { cookie: session.cookie }), (op, res) => {
      const body = res.json() as Json;
      if (res.statusCode !== 403 || !op.statuses.includes(403) || body.code !== 'FORBIDDEN' || !String(body.error).includes('X-CSRF-Token')) {
        return `${res.statusCode} ${res.body.slice(0, 200)}${op.statuses.includes(403) ? '' : ' (403 not documented)'}`;
      }
      return undefined;
    });
    expect(failures).toEqual([]);
    // A control: with its token the same cookie makes a change, so the refusals above are the token's.
    const withToken = await t.app.inject({ method: 'POST', url: '/api/org/agents', headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken }, payload: { name: 'Control', branding: BRAND } });
    expect(withToken.statusCode, withToken.body).toBe(201);
    const asDeveloper = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: a.developerSession.auth, payload: { name: 'control_tool', description: 'A control.', endpoint: 'https://api.example.com/control' } });
    expect(asDeveloper.statusCode, asDeveloper.body).toBe(201);
    expect(cookieChanges.filter(isDeveloperApi).length).toBeGreaterThan(5);
    expect(cookieChanges.length).toBeGreaterThan(30);
  });

  it('on the Developer API, an operator\'s session without a developer account: 403 FORBIDDEN saying how to become one, nothing written', async () => {
    const developerOps = operations.filter((op) => isDeveloperApi(op) && schemesOf(op).includes('consoleSession'));
    // With its CSRF token: the refusal is the missing developer account's alone.
    const failures = await refusalFailures(developerOps, () => ({ cookie: session.cookie, 'x-csrf-token': session.csrfToken }), (op, res) => wrongRefusal(op, res, 403, 'FORBIDDEN', NOT_A_DEVELOPER));
    expect(failures).toEqual([]);
    expect(developerOps.length).toBeGreaterThan(8);
  });
});

/** What is wrong with a refusal expected to be `status` `code` with `message`; undefined when right. */
function wrongRefusal(op: DocumentedOperation, res: LightMyRequestResponse, status: number, code: string, message: string): string | undefined {
  const body = res.json() as Json;
  if (res.statusCode !== status || body.code !== code || body.error !== message) return `${res.statusCode} instead of ${status} ${code}: ${res.body.slice(0, 200)}`;
  if (!op.statuses.includes(status)) return `answers ${status} but does not document it`;
  return undefined;
}

function nothingWritten(before: Record<string, string[]>, after: Record<string, string[]>): string | undefined {
  const tables = changedTables(before, after);
  return tables.length ? `wrote to ${tables.join(', ')}` : undefined;
}
