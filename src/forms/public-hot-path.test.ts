import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { App } from '../http/app-type.js';
import { createTestDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { createForm, nextClientIp } from '../../test/support/form-factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';

/**
 * The guard of the public config GET's speed (issue 37: ≥ 0.92× a bare Fastify server sending the same JSON,
 * docs/benchmarks.md). Speed itself is measured by `npm run bench`, never in a test; what this file holds is the
 * shape of the hot path that figure was measured on, so a change that puts work back on it fails here and is
 * measured before it lands:
 *
 * - a cached form is answered without a database query;
 * - the route runs exactly three hooks, all synchronous onRequest hooks (request id and nosniff, CORS, the rate
 *   limit), and no hook of any other kind: a hook added to every route (an onResponse, an onSend…) lands here;
 * - the headers it answers with were set under lower-case names (Fastify lower-cases every name it is given: a
 *   name in another case is a new string per header and request), which the raw head shows.
 */
describe.each(testDialects())('the public config GET\'s hot path on %s', (dialect) => {
  let app: App;
  let database: Database;
  let dispose: () => Promise<void>;
  let dataDir: string;
  let selects = 0;
  let slug: string;

  beforeAll(async () => {
    const created = await createTestDatabase(dialect);
    dispose = created.dispose;
    // Every SELECT the app runs is counted (the form loader reads forms, custom fields, the brand).
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') selects++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    database = { ...created.database, db: created.database.db.withPlugin(counter) };
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    const clock = new TestClock();
    app = await buildApp({
      config: loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }),
      database, clock,
      expiryPurge: false, webhookDelivery: false, notificationDelivery: false, handoffDeadlines: false,
    });
    await app.ready();
    const org = await createOrgWithKey(created.database, clock);
    slug = (await createForm(app, org)).slug;
  });
  afterAll(async () => {
    await app.close();
    await dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const read = () => app.inject({ method: 'GET', url: `/api/public/forms/${slug}`, remoteAddress: nextClientIp() });

  it('answers a cached form without a database query', async () => {
    expect((await read()).statusCode).toBe(200); // the first read loads the form into the cache
    const before = selects;
    for (let i = 0; i < 20; i++) expect((await read()).statusCode).toBe(200);
    expect(selects - before).toBe(0);
  });

  it('runs three synchronous onRequest hooks and no other hook', () => {
    const routes = app.printRoutes({ includeHooks: true, commonPrefix: false, method: 'GET' });
    const entry = routes.split('\n').findIndex((line) => / \/?api\/public\/forms\/:slug \(GET/.test(line));
    expect(entry).toBeGreaterThanOrEqual(0);
    // The hook lines under the route, up to the next route.
    const hooks: string[] = [];
    for (const line of routes.split('\n').slice(entry + 1)) {
      if (!line.includes('•')) break;
      hooks.push(line.slice(line.indexOf('•')));
    }
    expect(hooks).toEqual(['• (onRequest) ["requestIdAndNosniff()","corsHeaders()","rateLimit()"]']);
  });

  it('sets every header of its answer under a lower-case name', async () => {
    const res = await read();
    expect(res.statusCode).toBe(200);
    // The head as Node wrote it (light-my-request keeps it), names in the case they were set in.
    const head = (res.raw.res as unknown as { _header: string })._header;
    const names = head.split('\r\n').slice(1).filter(Boolean).map((line) => line.slice(0, line.indexOf(':')));
    expect(names).toEqual(expect.arrayContaining(['etag', 'cache-control', 'content-type', 'x-request-id', 'access-control-allow-origin', 'ratelimit-limit']));
    // Node adds Date, Connection and Keep-Alive itself, after ours.
    expect(names.filter((name) => name !== name.toLowerCase() && !['Date', 'Connection', 'Keep-Alive'].includes(name))).toEqual([]);
  });
});
