import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_A_DEVELOPER } from '../oauth/bearer.js';
import { NO_ORGANIZATION } from '../sessions/sessions-service.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp, getAccessToken } from '../../test/support/factories.js';
import { createRecordingMailer, mailBody, type RecordingMailer } from '../../test/support/smtp.js';
import { createTool, fixedResolver, toolInput } from '../../test/support/tools-factories.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'violet kettle marathon';

/** A signed-in browser: its cookie and CSRF token. */
interface Browser {
  cookie: string;
  csrf: string;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/**
 * One person, one sign-in (docs/accounts.md): developers sign up, sign in and recover their account as
 * operators do, and their session authorizes their own /api/dev/tools* routes (docs/developer-api.md).
 */
describe.each(testDialects())('developer accounts and the Developer API with a session on %s', (dialect) => {
  let t: TestContext;
  let mailer: RecordingMailer;

  beforeAll(async () => {
    mailer = createRecordingMailer();
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver(), mailer } });
  });
  afterAll(async () => t.close());

  /** Each call from its own address, so per-address limits do not mix tests. */
  const send = (method: Method, url: string, options: { browser?: Browser; csrf?: boolean; headers?: Record<string, string>; payload?: unknown } = {}) => {
    const headers: Record<string, string> = { origin: ORIGIN, ...options.headers };
    if (options.browser) {
      headers.cookie = options.browser.cookie;
      if (options.csrf !== false) headers['x-csrf-token'] = options.browser.csrf;
    }
    return t.app.inject({ method, url, headers, remoteAddress: `10.1.${counter % 250}.${++counter % 250}`, ...(options.payload !== undefined ? { payload: options.payload as object } : {}) });
  };

  function browserOf(res: Awaited<ReturnType<typeof send>>): Browser {
    const header = res.headers['set-cookie'];
    const cookie = /^svc_session=[^;]*/.exec(String(Array.isArray(header) ? header[0] : header))?.[0];
    if (!cookie) throw new Error(`no session cookie: ${res.statusCode} ${res.body}`);
    return { cookie, csrf: res.json().data.csrfToken };
  }

  async function signUpDeveloper(name = 'Dana Dev') {
    const email = `dev-${unique()}@example.com`;
    const res = await send('POST', '/api/auth/signup', { payload: { email, password: PASSWORD, name, developer: true } });
    expect(res.statusCode, res.body).toBe(201);
    return { ...browserOf(res), email, data: res.json().data };
  }

  async function signUpOperator() {
    const email = `op-${unique()}@example.com`;
    const res = await send('POST', '/api/auth/signup', { payload: { email, password: PASSWORD, name: 'Olive Owner', organizationName: 'Olive Plumbing' } });
    expect(res.statusCode, res.body).toBe(201);
    return { ...browserOf(res), email, data: res.json().data };
  }

  const session = async (browser: Browser) => (await send('GET', '/api/auth/session', { browser })).json().data;

  describe('sign-up and the session', () => {
    it('signs up a developer without an organization and signs in: the session says so', async () => {
      const dev = await signUpDeveloper('Dana Tools');
      expect(dev.data).toEqual({
        user: { id: expect.stringMatching(/^usr_/), email: dev.email, name: 'Dana Tools', role: null },
        organization: null,
        developer: { id: expect.stringMatching(/^dev_/), name: 'Dana Tools', email: dev.email },
        csrfToken: dev.csrf,
        // What the console writes into its snippets, whatever address it was opened at.
        publicUrl: 'http://localhost:3000',
      });
      expect(await session(dev)).toEqual(dev.data);
    });

    it('with an organization name and developer: true, makes both', async () => {
      const email = `both-${unique()}@example.com`;
      const res = await send('POST', '/api/auth/signup', { payload: { email, password: PASSWORD, name: 'Bo', organizationName: 'Bo Co', developer: true } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data).toMatchObject({ user: { role: 'owner' }, organization: { name: 'Bo Co' }, developer: { name: 'Bo', email } });
    });

    it('refuses neither an organization nor a developer, a taken email, and bad input; nothing is written', async () => {
      const taken = await signUpDeveloper();
      const cases: Array<[Record<string, unknown>, number, string, string | undefined]> = [
        [{ email: `x-${unique()}@example.com`, password: PASSWORD, name: 'X' }, 400, 'VALIDATION_ERROR', 'organizationName'],
        [{ email: `x-${unique()}@example.com`, password: PASSWORD, name: 'X', developer: false }, 400, 'VALIDATION_ERROR', 'organizationName'],
        [{ email: taken.email, password: PASSWORD, name: 'X', developer: true }, 409, 'CONFLICT', 'email'],
        [{ email: `x-${unique()}@example.com`, password: 'short', name: 'X', developer: true }, 400, 'VALIDATION_ERROR', 'password'],
        [{ email: `x-${unique()}@example.com`, password: PASSWORD, name: ' ', developer: true }, 400, 'VALIDATION_ERROR', 'name'],
        [{ email: `x-${unique()}@example.com`, password: PASSWORD, name: 'X', developer: 'yes' }, 400, 'VALIDATION_ERROR', undefined],
      ];
      for (const [payload, status, code, field] of cases) {
        const before = await databaseSnapshot(t.database);
        const res = await send('POST', '/api/auth/signup', { payload });
        expect([res.statusCode, res.json().code], res.body).toEqual([status, code]);
        if (field) expect(res.json().field).toBe(field);
        expect(res.json().error).toEqual(expect.any(String));
        expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      }
      const noChoice = await send('POST', '/api/auth/signup', { payload: { email: `x-${unique()}@example.com`, password: PASSWORD, name: 'X' } });
      expect(noChoice.json().error).toBe('Enter an organization name to run a business, or send developer: true to sign up as a developer.');
    });

    it('a developer without an organization gets 403 on /api/org/*, never a 500', async () => {
      const dev = await signUpDeveloper();
      for (const [method, url] of [['GET', '/api/org/agents'], ['GET', '/api/org/members'], ['POST', '/api/org/contacts']] as const) {
        const res = await send(method, url, { browser: dev, ...(method === 'POST' ? { payload: { email: 'lead@example.com' } } : {}) });
        expect([res.statusCode, res.json().code, res.json().error], `${method} ${url}`).toEqual([403, 'FORBIDDEN', NO_ORGANIZATION]);
      }
    });
  });

  describe('POST /api/auth/developer', () => {
    it('makes a signed-in operator a developer too; the session then opens the Developer API', async () => {
      const op = await signUpOperator();
      const refused = await send('GET', '/api/dev/tools', { browser: op });
      expect([refused.statusCode, refused.json().code, refused.json().error]).toEqual([403, 'FORBIDDEN', NOT_A_DEVELOPER]);
      const res = await send('POST', '/api/auth/developer', { browser: op, payload: { name: 'Olive Tools' } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data).toEqual({ ...op.data, developer: { id: expect.stringMatching(/^dev_/), name: 'Olive Tools', email: op.email } });
      expect((await session(op)).developer).toEqual(res.json().data.developer);
      const tools = await send('GET', '/api/dev/tools', { browser: op });
      expect([tools.statusCode, tools.json().data.items]).toEqual([200, []]);
      // The operator side is as it was.
      expect((await send('GET', '/api/org/members', { browser: op })).statusCode).toBe(200);
    });

    it('takes the person\'s name when none is given, and refuses a second time with 409', async () => {
      const op = await signUpOperator();
      const first = await send('POST', '/api/auth/developer', { browser: op });
      expect([first.statusCode, first.json().data.developer.name]).toEqual([201, 'Olive Owner']);
      const before = await databaseSnapshot(t.database);
      const again = await send('POST', '/api/auth/developer', { browser: op, payload: { name: 'Other' } });
      expect([again.statusCode, again.json().code, again.json().error]).toEqual([409, 'CONFLICT', 'This account is a developer already.']);
      expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    });

    it('refuses no session (401), no CSRF token (403), another site (403) and bad names (400); nothing written', async () => {
      const op = await signUpOperator();
      const cases: Array<[Parameters<typeof send>[2], number, string]> = [
        [{ payload: {} }, 401, 'UNAUTHORIZED'],
        [{ browser: op, csrf: false, payload: {} }, 403, 'FORBIDDEN'],
        [{ browser: op, headers: { origin: 'https://evil.example' }, payload: {} }, 403, 'FORBIDDEN'],
        [{ browser: op, payload: { name: '' } }, 400, 'VALIDATION_ERROR'],
        [{ browser: op, payload: { name: 'x'.repeat(101) } }, 400, 'VALIDATION_ERROR'],
        [{ browser: op, payload: { name: 'Ok', email: 'x@example.com' } }, 400, 'VALIDATION_ERROR'],
      ];
      for (const [options, status, code] of cases) {
        const before = await databaseSnapshot(t.database);
        const res = await send('POST', '/api/auth/developer', options);
        expect([res.statusCode, res.json().code], res.body).toEqual([status, code]);
        expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      }
      expect((await send('POST', '/api/auth/developer', { browser: op, csrf: false })).json().error).toContain('X-CSRF-Token');
    });
  });

  describe('/api/dev/tools* with a session', () => {
    it('does everything a token with all three scopes does: create, read, update, publish, unpublish, delete', async () => {
      const dev = await signUpDeveloper();
      const created = await send('POST', '/api/dev/tools', { browser: dev, payload: toolInput() });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().data.id as string;
      expect((await send('GET', `/api/dev/tools/${id}`, { browser: dev })).statusCode).toBe(200);
      expect((await send('PUT', `/api/dev/tools/${id}`, { browser: dev, payload: { description: 'Looks the weather up, now better.' } })).statusCode).toBe(200);
      expect((await send('POST', `/api/dev/tools/${id}/publish`, { browser: dev })).json().data.status).toBe('published');
      expect((await send('GET', `/api/dev/tools/${id}/stats`, { browser: dev })).statusCode).toBe(200);
      expect((await send('POST', `/api/dev/tools/${id}/unpublish`, { browser: dev })).json().data.status).toBe('draft');
      expect((await send('DELETE', `/api/dev/tools/${id}`, { browser: dev })).statusCode).toBe(200);
    });

    it('a change without the CSRF token or from another site: 403 FORBIDDEN, nothing written', async () => {
      const dev = await signUpDeveloper();
      for (const options of [{ csrf: false }, { headers: { origin: 'https://evil.example' } }]) {
        const before = await databaseSnapshot(t.database);
        const res = await send('POST', '/api/dev/tools', { browser: dev, payload: toolInput(), ...options });
        expect([res.statusCode, res.json().code]).toEqual([403, 'FORBIDDEN']);
        expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      }
    });

    it('another developer\'s tool answers 404 as a missing one; no session at all is 401', async () => {
      const [mine, theirs] = [await signUpDeveloper(), await signUpDeveloper()];
      const tool = (await send('POST', '/api/dev/tools', { browser: theirs, payload: toolInput() })).json().data;
      const res = await send('GET', `/api/dev/tools/${tool.id}`, { browser: mine });
      expect([res.statusCode, res.json().code]).toEqual([404, 'TOOL_NOT_FOUND']);
      const before = await databaseSnapshot(t.database);
      expect((await send('DELETE', `/api/dev/tools/${tool.id}`, { browser: mine })).statusCode).toBe(404);
      expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      const nobody = await send('GET', '/api/dev/tools');
      expect([nobody.statusCode, nobody.json().code, nobody.headers['www-authenticate']]).toEqual([401, 'UNAUTHORIZED', 'Bearer realm="switchboard"']);
    });

    it('a bearer token wins over the cookie when both are sent', async () => {
      const dev = await signUpDeveloper();
      await send('POST', '/api/dev/tools', { browser: dev, payload: toolInput() });
      const other = await createDeveloperWithApp(t.database, t.clock);
      const token = await getAccessToken(t.app, other.app);
      const res = await send('GET', '/api/dev/tools', { browser: dev, headers: { authorization: `Bearer ${token}` } });
      expect([res.statusCode, res.json().data.items]).toEqual([200, []]);
      const bad = await send('GET', '/api/dev/tools', { browser: dev, headers: { authorization: 'Bearer svc_at_nothing' } });
      expect([bad.statusCode, bad.json().code]).toEqual([401, 'INVALID_TOKEN']);
    });

    it('ends with the session: idle expiry and sign-out close the Developer API too', async () => {
      const dev = await signUpDeveloper();
      expect((await send('POST', '/api/auth/signout', { browser: dev })).statusCode).toBe(200);
      expect((await send('GET', '/api/dev/tools', { browser: dev })).statusCode).toBe(401);
      const idle = await signUpDeveloper();
      t.clock.advance(t.config.sessions.idleMs);
      expect((await send('GET', '/api/dev/tools', { browser: idle })).statusCode).toBe(401);
    });
  });

  describe('what accounts do applies to developers', () => {
    it('a CLI-made developer signs in with their email and password and gets the developer session', async () => {
      const cli = await createDeveloperWithApp(t.database, t.clock, { name: 'Cli Tools' });
      const res = await send('POST', '/api/auth/signin', { payload: { email: cli.developer.email, password: 'correct horse battery' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ organization: null, user: { role: null }, developer: { id: cli.developer.id, name: 'Cli Tools', email: cli.developer.email } });
      await createTool(t.app, { authorization: `Bearer ${await getAccessToken(t.app, cli.app)}` });
      expect((await send('GET', '/api/dev/tools', { browser: browserOf(res) })).json().data.items).toHaveLength(1);
    });

    it('changing the password ends the other sessions; a reset by email works without an organization', async () => {
      const dev = await signUpDeveloper();
      const other = browserOf(await send('POST', '/api/auth/signin', { payload: { email: dev.email, password: PASSWORD } }));
      const changed = await send('POST', '/api/auth/password', { browser: dev, payload: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' } });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().data).toMatchObject({ organization: null, developer: { email: dev.email } });
      expect((await send('GET', '/api/dev/tools', { browser: other })).statusCode).toBe(401);
      expect((await send('GET', '/api/dev/tools', { browser: browserOf(changed) })).statusCode).toBe(200);

      expect((await send('POST', '/api/auth/password-reset', { payload: { email: dev.email } })).statusCode).toBe(202);
      await t.background.idle();
      const mail = mailer.sent.find((m) => m.to.includes(dev.email));
      const token = /\/app\/reset-password\/(svc_rst_\w+)/.exec(mailBody(mail!.raw))![1]!;
      const reset = await send('POST', '/api/auth/password-reset/confirm', { payload: { token, password: 'reset to this passphrase' } });
      expect(reset.statusCode, reset.body).toBe(200);
      expect(reset.json().data.developer.email).toBe(dev.email);
      expect((await send('GET', '/api/dev/tools', { browser: browserOf(changed) })).statusCode).toBe(401);
      expect((await send('POST', '/api/auth/signin', { payload: { email: dev.email, password: 'reset to this passphrase' } })).statusCode).toBe(200);
    });

    it('sign-in attempts are limited per account for developers too', async () => {
      const dev = await signUpDeveloper();
      for (let i = 0; i < 10; i++) expect((await send('POST', '/api/auth/signin', { payload: { email: dev.email, password: 'wrong password here' } })).statusCode).toBe(401);
      const limited = await send('POST', '/api/auth/signin', { payload: { email: dev.email, password: PASSWORD } });
      expect([limited.statusCode, limited.json().code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    });

    it('a member removed from an organization who is a developer keeps the developer account, without an organization', async () => {
      const owner = await signUpOperator();
      const invitation = (await send('POST', '/api/org/invitations', { browser: owner, payload: { email: `m-${unique()}@example.com` } })).json().data;
      // Emailed (the test mailer records it), so the link is not in the answer.
      const mail = mailer.sent.find((m) => m.to.includes(invitation.email));
      const token = /\/app\/invitations\/(svc_inv_\w+)/.exec(mailBody(mail!.raw))![1]!;
      const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, { payload: { name: 'Max', password: PASSWORD } });
      const member = browserOf(accepted);
      const userId = accepted.json().data.user.id as string;
      await send('POST', '/api/auth/developer', { browser: member, payload: { name: 'Max Tools' } });
      await send('POST', '/api/dev/tools', { browser: member, payload: toolInput() });
      expect((await send('DELETE', `/api/org/members/${userId}`, { browser: owner })).statusCode).toBe(200);
      const back = await send('POST', '/api/auth/signin', { payload: { email: invitation.email, password: PASSWORD } });
      expect(back.json().data).toMatchObject({ organization: null, user: { role: null }, developer: { name: 'Max Tools' } });
      expect((await send('GET', '/api/dev/tools', { browser: browserOf(back) })).json().data.items).toHaveLength(1);
      expect((await send('GET', '/api/org/members', { browser: owner })).json().data.map((m: { id: string }) => m.id)).not.toContain(userId);
    });
  });
});
