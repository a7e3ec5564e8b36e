import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from './db/database.js';
import { createTestDatabase, TEST_ENV, TestClock } from '../test/support/context.js';
import { createDeveloperWithApp } from '../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../test/support/https-endpoint.js';
import { BRAND } from '../test/support/invocation-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../test/support/org-factories.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { toolInput } from '../test/support/tools-factories.js';

/**
 * Two nodes, one killed: two real server processes (src/main.ts) on one PostgreSQL and one Redis,
 * as a fleet behind a balancer runs. Before the kill: a client alternating between the nodes meets
 * exactly one rate limit, and a form edited through one node is served fresh by the other. Then
 * submissions and tool calls spread over both, and `kill -9` of one mid-run: the other node answers
 * every request it gets, throughout, and every write either node acknowledged is in the database.
 * Everything listens on 127.0.0.1; the load is bounded.
 */
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Clients sending at once, and the operations each sends (half to each node while both live). */
const CLIENTS = 8;
const OPERATIONS_PER_CLIENT = 60;
/** The kill comes once this many operations were answered. */
const KILL_AFTER = 120;

describe.skipIf(!databaseUrl || !redisUrl)('two nodes on one PostgreSQL and one Redis, one killed', () => {
  let database: Database;
  let dispose: () => Promise<void>;
  let endpoint: HttpsEndpoint;
  let nodes: [ServerProcess, ServerProcess];
  let org: OrgWithKey;
  let agentId: string;
  let toolName: string;
  let slug: string;
  let clientNumber = 0;
  /** A client address of its own (TRUST_PROXY names loopback as the balancer), so per-address limits are each client's. */
  const nextAddress = () => {
    clientNumber++;
    return `10.${(clientNumber >> 16) & 255}.${(clientNumber >> 8) & 255}.${clientNumber & 255}`;
  };

  const request = async (node: ServerProcess, method: string, path: string, options: { auth?: string; body?: unknown; address?: string } = {}) => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: {
        'x-forwarded-for': options.address ?? nextAddress(),
        ...(options.auth ? { authorization: `Bearer ${options.auth}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as { data?: any } };
  };

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { quote: 12.5 }));
    const created = await createTestDatabase('postgres');
    database = created.database;
    dispose = created.dispose;
    const clock = new TestClock();
    const { app: devApp } = await createDeveloperWithApp(database, clock);
    org = await createOrgWithKey(database, clock);
    const env = {
      ...TEST_ENV, LOG_LEVEL: 'silent', DATABASE_URL: created.url!, REDIS_URL: redisUrl!, TRUST_PROXY: '127.0.0.1',
      TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: endpoint.caFile,
    };
    nodes = await Promise.all([startServerProcess(env, 45_000), startServerProcess(env, 45_000)]);
    const [a] = nodes;

    // A published tool installed for an agent, and a form, made through node A.
    const token = await fetch(`${a.url}/api/dev/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: devApp.clientId, client_secret: devApp.clientSecret }).toString(),
    });
    const devToken = ((await token.json()) as { access_token: string }).access_token;
    const tool = (await request(a, 'POST', '/api/dev/tools', { auth: devToken, body: toolInput({ endpoint: `https://127.0.0.1:${endpoint.port}/quote` }) })).body.data;
    expect((await request(a, 'POST', `/api/dev/tools/${tool.id}/publish`, { auth: devToken, body: {} })).status).toBe(200);
    agentId = (await request(a, 'POST', '/api/org/agents', { auth: org.apiKey, body: { name: 'Fleet bot', branding: BRAND } })).body.data.id;
    toolName = (await request(a, 'POST', '/api/org/installations', { auth: org.apiKey, body: { toolId: tool.id } })).body.data.name;
    slug = `fleet-${Date.now()}`;
    const form = await request(a, 'POST', '/api/org/forms', { auth: org.apiKey, body: { slug, title: 'Book a visit', consentText: 'I agree to be contacted about my request.' } });
    expect(form.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes ?? []) node.signal('SIGKILL');
    await Promise.all((nodes ?? []).map((node) => node.ended));
    await endpoint?.close();
    await dispose?.();
  });

  it('holds one rate limit for a client that alternates between the nodes', async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request(nodes[i % 2]!, 'POST', `/api/public/forms/${slug}/submit`, { address, body: { consentVersion: '1', email: `alternating-${i}@example.com` } });
      statuses.push(res.status);
    }
    // The submit limit is 10 a minute per client and form (rules.ts): 10 accepted in all, not 10 per node.
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it('serves a form edited through one node fresh from the other', async () => {
    const [a, b] = nodes;
    expect((await request(b, 'GET', `/api/public/forms/${slug}`)).body.data.title).toBe('Book a visit');
    const forms = (await request(a, 'GET', '/api/org/forms', { auth: org.apiKey })).body.data.items as Array<{ id: string; slug: string }>;
    const id = forms.find((form) => form.slug === slug)!.id;
    expect((await request(a, 'PATCH', `/api/org/forms/${id}`, { auth: org.apiKey, body: { title: 'Book a visit today' } })).status).toBe(200);
    // The invalidation crosses Redis pub/sub: a moment, not a TTL.
    let title = '';
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      title = (await request(b, 'GET', `/api/public/forms/${slug}`)).body.data.title as string;
      if (title === 'Book a visit today') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(title).toBe('Book a visit today');
  });

  it('keeps every acknowledged write and the other node answering when one is killed mid-run', async () => {
    const [a, b] = nodes;
    const acknowledged = { emails: [] as string[], callIds: [] as string[] };
    const failuresOnB: string[] = [];
    let answered = 0;
    let killed = false;

    async function client(n: number): Promise<void> {
      for (let i = 0; i < OPERATIONS_PER_CLIENT; i++) {
        const node = killed ? b : i % 2 === 0 ? a : b;
        const submission = i % 3 !== 2;
        const email = `load-${n}-${i}@example.com`;
        try {
          const res = submission
            ? await request(node, 'POST', `/api/public/forms/${slug}/submit`, { body: { consentVersion: '1', email } })
            : await request(node, 'POST', `/api/org/agents/${agentId}/tool-calls`, { auth: org.apiKey, body: { name: toolName, arguments: { weightKg: 2, country: 'PT' } } });
          if (res.status === 200) {
            if (submission) acknowledged.emails.push(email);
            else acknowledged.callIds.push(res.body.data.callId as string);
          } else if (node === b) failuresOnB.push(`${res.status} ${JSON.stringify(res.body)}`);
        } catch (error) {
          // A request to the killed node fails with the connection; one to the live node must not.
          if (node === b) failuresOnB.push(String(error));
        }
        answered++;
        if (!killed && answered >= KILL_AFTER) {
          killed = true;
          a.signal('SIGKILL');
        }
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    await a.ended;

    expect(a.exit()?.signal).toBe('SIGKILL');
    expect(failuresOnB).toEqual([]);
    expect(b.exit()).toBeUndefined();
    expect(acknowledged.emails.length).toBeGreaterThan(CLIENTS * OPERATIONS_PER_CLIENT * 0.5);
    expect(acknowledged.callIds.length).toBeGreaterThan(0);

    const contacts = await sql<{ email: string }>`select email from contacts where org_id = ${org.orgId}`.execute(database.db);
    const stored = new Set(contacts.rows.map((row) => row.email));
    expect(acknowledged.emails.filter((email) => !stored.has(email))).toEqual([]);
    const calls = await sql<{ id: string }>`select id from tool_calls where org_id = ${org.orgId}`.execute(database.db);
    const logged = new Set(calls.rows.map((row) => row.id));
    expect(acknowledged.callIds.filter((id) => !logged.has(id))).toEqual([]);
    // And the survivor still serves.
    expect((await request(b, 'GET', `/api/public/forms/${slug}`)).status).toBe(200);
  }, 120_000);
});
