import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, getAccessToken } from '../../test/support/factories.js';

describe('logs', () => {
  let t: TestContext;
  const lines: string[] = [];

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    t = await createTestContext('sqlite', { env: { LOG_LEVEL: 'trace' }, deps: { logStream } });
  });
  afterAll(async () => t.close());

  it('carry the request id and never a client secret or access token', async () => {
    const { app } = await createDeveloperWithApp(t.database, t.clock);
    const token = await getAccessToken(t.app, app);
    await t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: `Bearer ${token}`, cookie: 'session=svc_sess_secretcookie' } });
    await t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: 'Bearer svc_at_invalidbutsecret' } });
    const all = lines.join('');
    expect(all).toContain('"reqId":"req_');
    expect(all).not.toContain(app.clientSecret);
    expect(all).not.toContain(token);
    expect(all).not.toContain('svc_at_invalidbutsecret');
    expect(all).not.toContain('svc_sess_secretcookie');
  });

  it('put the request id of the request on each line it logs, the same as its X-Request-Id, and on no other line', async () => {
    lines.length = 0;
    const first = await t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: 'Bearer svc_at_first' } });
    const second = await t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: 'Bearer svc_at_second' } });
    t.app.log.info('not a request');
    const parsed = lines.join('').trim().split('\n').map((line) => JSON.parse(line) as { reqId?: string; msg?: string });
    for (const response of [first, second]) {
      const id = response.headers['x-request-id'];
      expect(id).toMatch(/^req_/);
      const own = parsed.filter((line) => line.reqId === id);
      expect(own.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    }
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    expect(parsed.find((line) => line.msg === 'not a request')).not.toHaveProperty('reqId');
  });

  it('redact secrets wherever a handler logs them', () => {
    t.app.log.info({ req: { headers: { authorization: 'Bearer svc_at_leak' } }, body: { client_secret: 'svc_cs_leak', password: 'hunter2' } }, 'oops');
    const all = lines.join('');
    expect(all).not.toContain('svc_at_leak');
    expect(all).not.toContain('svc_cs_leak');
    expect(all).not.toContain('hunter2');
    expect(all).toContain('[redacted]');
  });
});
