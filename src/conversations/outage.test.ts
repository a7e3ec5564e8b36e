import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { TestClock } from '../../test/support/context.js';
import { MODEL_KEY } from '../../test/support/conversation-factories.js';
import { BRAND } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { hasPostgresBinaries, startPgCluster, type PgCluster } from '../../test/support/pg-cluster.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { startServerProcess, type ServerProcess } from '../../test/support/server-process.js';

/**
 * PostgreSQL stops while turns are answering (issue 32). Each turn that cannot be saved ends with
 * SERVICE_UNAVAILABLE (503 with Retry-After as JSON; the stream's `error` event with the code and `retryAfter`),
 * logged as one warning line, never an error with a stack; and once the database is back the next message on
 * the same conversations is answered at once, on either node, instead of "still answering". Two real server
 * processes (their logs read), a PostgreSQL of this file's own, and Redis when the run has it.
 */
const enabled = Boolean(process.env.TEST_DATABASE_URL) && hasPostgresBinaries();
const LIMITS = { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_ACQUIRE_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '1000' };
/** The model answers this long after it is asked: the database is stopped in between. */
const MODEL_DELAY_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!enabled)('a database outage in the middle of turns, on two nodes', () => {
  let cluster: PgCluster;
  let model: ScriptedModel;
  let nodes: ServerProcess[] = [];
  let org: OrgWithKey;

  beforeAll(async () => {
    cluster = await startPgCluster();
    model = await startScriptedModel();
    const database = openDatabase({ databaseUrl: cluster.url });
    await migrateToLatest(database.migrationDb);
    org = await createOrgWithKey(database, new TestClock());
    await database.close();
    const env = {
      NODE_ENV: 'test', SECRETS_KEY: '0'.repeat(64), DATABASE_URL: cluster.url, DATABASE_POOL_SIZE: '4', LOG_LEVEL: 'info',
      MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', MODEL_TIMEOUT_MS: '10000', ...LIMITS,
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: `outage${Date.now()}:` } : {}),
    };
    nodes = [await startServerProcess(env, 60_000), await startServerProcess(env, 60_000)];
  }, 180_000);
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await model?.close();
    cluster?.destroy();
  });

  const api = (node: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${node.url}${path}`, { method, headers: { ...org.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(20_000) });

  async function conversations(count: number): Promise<string[]> {
    const node = nodes[0]!;
    const provider: any = await (await api(node, 'POST', '/api/org/model-providers', { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: MODEL_KEY })).json();
    expect(provider.success, JSON.stringify(provider)).toBe(true);
    const agent: any = await (await api(node, 'POST', '/api/org/agents', { name: 'Outage desk', branding: BRAND })).json();
    expect(agent.success, JSON.stringify(agent)).toBe(true);
    expect((await api(node, 'PATCH', `/api/org/agents/${agent.data.id}`, { model: { providerId: provider.data.id, model: 'scripted-model', instructions: 'Be brief.' } })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(((await (await api(node, "POST", `/api/org/agents/${agent.data.id}/conversations`)).json()) as any).data.id);
    return ids;
  }

  it('ends each turn it cannot save with SERVICE_UNAVAILABLE and one warning, and frees the conversations once the database is back', async () => {
    const ids = await conversations(4);
    const logBefore = nodes.map((node) => node.output().length);
    model.script(...ids.map(() => ({ text: 'Twelve fifty.', delayMs: MODEL_DELAY_MS })));
    // Two turns on each node, one as JSON and one streamed.
    const turns = ids.map((id, i) => api(nodes[i % 2]!, 'POST', `/api/org/conversations/${id}/messages`, { content: 'Price?' }, i < 2 ? {} : { accept: 'text/event-stream' })
      .then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() })));
    // Every turn has asked the model: the database goes away while they wait for its answer.
    for (let waited = 0; model.requests.length < ids.length && waited < 10_000; waited += 20) await sleep(20);
    expect(model.requests).toHaveLength(ids.length);
    cluster.stop();
    const answers = await Promise.all(turns);

    for (const json of answers.slice(0, 2)) {
      expect(json.status, json.body).toBe(503);
      expect(json.retryAfter).toBe('5');
      expect(JSON.parse(json.body)).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', error: expect.stringContaining('could not be saved') });
    }
    for (const streamed of answers.slice(2)) {
      expect(streamed.status).toBe(200);
      const error = streamed.body.split('\n\n').find((block) => block.startsWith('event: error'));
      expect(error, streamed.body).toBeDefined();
      expect(JSON.parse(/^data: (.+)$/m.exec(error!)![1]!)).toMatchObject({ type: 'error', code: 'SERVICE_UNAVAILABLE', retryAfter: '5', message: expect.stringContaining('could not be saved') });
    }

    // The log: a warning per turn, no error line and no stack trace (the lines reach the pipe a moment after the answers).
    type Line = { level: number; msg: string; err?: unknown; code?: string };
    const logged = () => nodes.flatMap((node, i) => node.output().slice(logBefore[i]).split('\n')).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line);
    const unsaved = () => logged().filter((line) => line.level === 40 && line.code === 'SERVICE_UNAVAILABLE');
    for (let waited = 0; unsaved().length < ids.length && waited < 3000; waited += 50) await sleep(50);
    expect(unsaved()).toHaveLength(ids.length);
    expect(logged().filter((line) => line.level >= 50)).toEqual([]);
    expect(logged().filter((line) => line.err !== undefined)).toEqual([]);

    // Back: each node is ready again, and the next message on every conversation is answered on the other node.
    cluster.start();
    for (const node of nodes) {
      for (let waited = 0; (await fetch(`${node.url}/readyz`).then((res) => res.status, () => 0)) !== 200; waited += 100) {
        if (waited > 15_000) throw new Error('a node did not see its database come back');
        await sleep(100);
      }
    }
    // The claims are given back within one retry (500 ms) of the database's return.
    await sleep(700);
    model.script(...ids.map(() => ({ text: 'Twelve fifty.' })));
    const again = await Promise.all(ids.map((id, i) => api(nodes[(i + 1) % 2]!, 'POST', `/api/org/conversations/${id}/messages`, { content: 'Price?' })));
    expect(again.map((res) => res.status)).toEqual(ids.map(() => 200));
    for (const node of nodes) expect(node.exit()).toBeUndefined();
  }, 90_000);
});
