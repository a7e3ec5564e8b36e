import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { RESET_PER_ACCOUNT, SIGN_IN_PER_ACCOUNT } from './operators-service.js';
import { PER_IP } from './routes.js';

const ORIGIN = 'http://localhost:3000';
const redisUrl = process.env.TEST_REDIS_URL;
const setups = testDialects().flatMap((dialect) => [{ dialect, store: 'memory' }, ...(redisUrl ? [{ dialect, store: 'redis' }] : [])]);

/** One limit of the console's account endpoints, tried across a window's edge. */
interface LimitCase {
  rule: { limit: number; windowMs: number; message: string };
  /** The answer of a try the limit lets through. */
  okStatus: number;
  /** Try number `i`, always against the same key (the account, or the address). */
  attempt(i: number): Promise<LightMyRequestResponse>;
  /** Rows the endpoint writes (sessions, reset links, users): refused tries must write none. */
  written(): Promise<number>;
}

describe.each(setups)('account limits on $dialect, counted in $store', ({ dialect, store }) => {
  let t: TestContext;
  let counter = 0;

  beforeAll(async () => {
    t = await createTestContext(dialect, store === 'redis' ? { env: { REDIS_URL: redisUrl! }, deps: { redisPrefix: `test:${randomBase62(8)}:` } } : {});
  });
  afterAll(async () => t.close());

  const inject = (method: 'GET' | 'POST', url: string, ip: string, payload?: object) =>
    t.app.inject({ method, url, remoteAddress: ip, headers: { origin: ORIGIN }, ...(payload ? { payload } : {}) });
  const freshIp = () => `10.${(++counter >> 8) & 255}.${counter & 255}.7`;
  const count = async (table: 'sessions' | 'password_resets' | 'users') => Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  async function signUp(): Promise<{ email: string; password: string }> {
    const email = `limits-${randomBase62(10).toLowerCase()}@example.com`;
    const password = 'violet kettle marathon';
    const res = await inject('POST', '/api/auth/signup', freshIp(), { email, password, name: 'Olive', organizationName: 'Olive Plumbing' });
    expect(res.statusCode, res.body).toBe(201);
    return { email, password };
  }

  const cases: Array<{ name: string; setup: () => Promise<LimitCase> }> = [
    {
      name: 'sign-in per account (the right password, from a new address each time)',
      setup: async () => {
        const owner = await signUp();
        return {
          rule: SIGN_IN_PER_ACCOUNT,
          okStatus: 200,
          attempt: () => inject('POST', '/api/auth/signin', freshIp(), owner),
          written: () => count('sessions'),
        };
      },
    },
    {
      name: 'sign-in per address',
      setup: async () => {
        const ip = freshIp();
        return {
          rule: PER_IP.signin,
          okStatus: 401,
          // Malformed emails: answered without a password check, so the test stays fast.
          attempt: (i) => inject('POST', '/api/auth/signin', ip, { email: `nobody-${i}`, password: 'x' }),
          written: () => count('sessions'),
        };
      },
    },
    {
      name: 'password reset per account',
      setup: async () => {
        const owner = await signUp();
        return {
          rule: RESET_PER_ACCOUNT,
          okStatus: 202,
          attempt: async () => {
            const res = await inject('POST', '/api/auth/password-reset', freshIp(), { email: owner.email });
            await t.background.idle();
            return res;
          },
          written: () => count('password_resets'),
        };
      },
    },
    {
      name: 'password reset per address',
      setup: async () => {
        const ip = freshIp();
        return {
          rule: PER_IP.reset,
          okStatus: 202,
          attempt: async (i) => {
            const res = await inject('POST', '/api/auth/password-reset', ip, { email: `nobody-${i}-${randomBase62(6)}@example.com` });
            await t.background.idle();
            return res;
          },
          written: () => count('password_resets'),
        };
      },
    },
    {
      name: 'reset and invitation tokens per address',
      setup: async () => {
        const ip = freshIp();
        return {
          rule: PER_IP.token,
          okStatus: 404,
          attempt: () => inject('GET', `/api/auth/invitations/svc_inv_${randomBase62(40)}`, ip),
          written: () => count('users'),
        };
      },
    },
    {
      name: 'sign-up per address',
      setup: async () => {
        const ip = freshIp();
        return {
          rule: PER_IP.signup,
          okStatus: 201,
          attempt: (i) => inject('POST', '/api/auth/signup', ip, { email: `signup-${i}-${randomBase62(8).toLowerCase()}@example.com`, password: 'violet kettle marathon', name: 'Ada', organizationName: 'Ada Co' }),
          written: () => count('users'),
        };
      },
    },
  ];

  it.each(cases)('$name: as many tries just after a window edge as just before it are all refused', async ({ name, setup }) => {
    const c = await setup();
    const { limit, windowMs, message } = c.rule;
    // 5 s before the edge of the fixed window of this length (where the old limiter started again from zero).
    const now = t.clock.now().getTime();
    t.clock.advance((Math.floor(now / windowMs) + 2) * windowMs - 5000 - now);
    const first = t.clock.now().getTime();
    for (let i = 0; i < limit; i++) {
      const res = await c.attempt(i);
      expect(res.statusCode, `${name}, try ${i + 1}: ${res.body}`).toBe(c.okStatus);
      t.clock.advance(10);
    }
    const written = await c.written();
    t.clock.advance(first + 10_000 - t.clock.now().getTime());
    for (let i = limit; i < 2 * limit; i++) {
      const res = await c.attempt(i);
      expect(res.statusCode, `${name}, try ${i + 1} (after the edge)`).toBe(429);
      // Truthful: the first try leaves the window in windowMs − 10 s.
      const seconds = Math.ceil((first + windowMs - t.clock.now().getTime()) / 1000);
      expect(res.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED', error: `${message} Try again in ${seconds} seconds.` });
      expect(res.headers).toMatchObject({ 'retry-after': String(seconds), 'ratelimit-reset': String(seconds), 'ratelimit-remaining': '0', 'ratelimit-limit': String(limit) });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(await c.written()).toBe(written);
    // When Retry-After says, one slot frees: one more try goes through.
    t.clock.advance(first + windowMs - t.clock.now().getTime());
    expect((await c.attempt(2 * limit)).statusCode).toBe(c.okStatus);
    expect((await c.attempt(2 * limit + 1)).statusCode).toBe(429);
  }, 60_000);
});
