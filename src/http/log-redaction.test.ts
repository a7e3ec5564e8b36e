import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, getAccessToken } from '../../test/support/factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { newSecret } from '../lib/ids.js';
import { redactPaths, redactUrl } from './redact.js';

/** Query parameter names clients put credentials under, in the spellings they use. */
const CREDENTIAL_PARAMS = ['access_token', 'client_secret', 'api_key', 'apikey', 'apiKey', 'x-api-key', 'token', 'refresh_token', 'key', 'password', 'secret', 'code', 'Authorization'];

/** Sends `raw` over a plain socket and waits for the server to hang up. */
function sendRaw(port: number, raw: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

describe('log redaction', () => {
  let t: TestContext;
  const lines: string[] = [];
  const secrets: Record<string, string> = {};
  let clientId: string;

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    t = await createTestContext('sqlite', { env: { LOG_LEVEL: 'trace' }, deps: { logStream } });
    const { app } = await createDeveloperWithApp(t.database, t.clock);
    clientId = app.clientId;
    secrets.clientSecret = app.clientSecret;
    secrets.accessToken = await getAccessToken(t.app, app);
    secrets.orgApiKey = (await createOrgWithKey(t.database, t.clock)).apiKey;
    secrets.agentKey = newSecret('svc_agt');
    secrets.session = newSecret('svc_ses');
    // A real console session: its cookie and CSRF token are sent with every kind of request below.
    const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'logs@example.com', password: 'violet kettle marathon', name: 'Logs', organizationName: 'Logs Co' } });
    secrets.realSession = /svc_session=(svc_ses_\w+)/.exec(String(signup.headers['set-cookie']))![1]!;
    secrets.csrfToken = (signup.json() as { data: { csrfToken: string } }).data.csrfToken;
  });
  afterAll(async () => t.close());

  /** Every place a client might put a secret, for one secret. */
  async function sendEverywhere(secret: string): Promise<void> {
    const inject = t.app.inject.bind(t.app);
    for (const name of CREDENTIAL_PARAMS) {
      await inject({ method: 'GET', url: `/api/dev/tools?${name}=${secret}` });
      await inject({ method: 'GET', url: `/api/org/contacts?limit=5&${encodeURIComponent(name)}=${encodeURIComponent(secret)}` });
    }
    await inject({ method: 'GET', url: `/api/catalog/tools?q=${secret}` });
    await inject({ method: 'GET', url: `/api/catalog/tools?q=Bearer%20${secret.replace('_', '%5F')}` });
    await inject({ method: 'GET', url: `/api/catalog/tools?${secret}` });
    await inject({ method: 'POST', url: `/api/dev/oauth/token?client_secret=${secret}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
    await inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: `Bearer ${secret}` } });
    await inject({ method: 'GET', url: '/api/org/contacts', headers: { authorization: `Bearer ${secret}` } });
    await inject({ method: 'GET', url: '/api/org/contacts', headers: { 'x-api-key': secret } });
    await inject({ method: 'GET', url: '/api/dev/tools', headers: { cookie: `session=${secret}; theme=dark` } });
    await inject({ method: 'GET', url: '/api/org/contacts', headers: { cookie: `svc_session=${secret}` } });
    await inject({ method: 'POST', url: '/api/org/contacts', headers: { cookie: `svc_session=${secrets.realSession}`, 'x-csrf-token': secret }, payload: { email: 'y@example.com' } });
    await inject({ method: 'POST', url: '/api/auth/signout', headers: { cookie: `theme=dark; svc_session=${secret}`, 'x-csrf-token': secret } });
    await inject({ method: 'POST', url: '/api/auth/signin', payload: { email: 'logs@example.com', password: secret } });
    const basic = Buffer.from(`${clientId}:${secret}`).toString('base64');
    await inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
    await inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString() });
    await inject({ method: 'POST', url: '/api/dev/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token: secret, client_id: clientId, client_secret: secret }).toString() });
    await inject({ method: 'POST', url: '/api/dev/tools', headers: { authorization: `Bearer ${secrets.accessToken}` }, payload: { name: secret, apiKey: secret, token: secret, description: secret } });
    await inject({ method: 'POST', url: '/api/org/contacts', headers: { authorization: `Bearer ${secrets.orgApiKey}` }, payload: { email: 'x@example.com', notes: secret, password: secret } });
    await inject({ method: 'GET', url: `/api/catalog/tools/${secret}` });
    await inject({ method: 'GET', url: `/api/dev/tools/${secret}/revisions`, headers: { authorization: `Bearer ${secrets.accessToken}` } });
    await inject({ method: 'GET', url: `/nowhere/${secret}?${secret}` });
  }

  it('keeps every kind of secret out of the logs, wherever the client put it', async () => {
    for (const secret of Object.values(secrets)) await sendEverywhere(secret);
    // A malformed request: Node hands the server the raw bytes it read (headers and all) with the client error;
    // our client-error handler logs only its code, and the err serializer would drop the bytes anyway.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    for (const secret of Object.values(secrets)) {
      await sendRaw(port, `GET /api/dev/tools?access_token=${secret} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nbroken header line\r\n\r\n`);
    }

    const all = lines.join('');
    expect(all).toContain('"msg":"incoming request"');
    expect(all).toMatch(/"reason":"HPE_[A-Z_]+","msg":"request refused"/);
    expect(all).toContain('?access_token=[redacted]');
    expect(all).toContain('/api/catalog/tools/[redacted]');
    for (const [kind, secret] of Object.entries(secrets)) {
      // The random part too: a percent-encoded prefix must not let the rest through.
      const tail = secret.slice(-24);
      expect(all.includes(tail), `${kind} (${secret}) reached the logs`).toBe(false);
    }
  });
});

describe('redactPaths', () => {
  it('redacts a secret a line carries at its top level or one object down, and keeps the rest', () => {
    const out: string[] = [];
    const log = pino({ redact: { paths: redactPaths, censor: '[redacted]' } }, { write: (line: string) => out.push(line) });
    const secrets = { password: 'pw-1', token: 'tk-2', client_secret: 'cs-3', refresh_token: 'rt-4', accessToken: 'at-5', secret: 's-6' };
    log.warn({ ...secrets, email: 'ada@example.com' }, 'top level');
    log.warn({ body: { ...secrets, email: 'ada@example.com' } }, 'one down');
    const [top, nested] = out.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const key of Object.keys(secrets)) {
      expect(top![key], key).toBe('[redacted]');
      expect((nested!.body as Record<string, unknown>)[key], `body.${key}`).toBe('[redacted]');
    }
    expect(top!.email).toBe('ada@example.com');
    for (const value of Object.values(secrets)) expect(out.join('')).not.toContain(value);
  });
});

describe('redactUrl', () => {
  it('leaves a URL without secrets as it was', () => {
    for (const url of ['/api/dev/tools', '/api/catalog/tools?q=weather&limit=10&cursor=abc', '/api/dev/tools/tool_3kTMd92nqLx0aPz8Vb1c', '/?', '/x?a&b=&=c']) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('redacts parameters named like credentials, whatever their case or encoding', () => {
    expect(redactUrl('/a?limit=5&access_token=abc&Client_Secret=def&X-API-KEY=ghi&refresh%5Ftoken=jkl&q=ok')).toBe(
      '/a?limit=5&access_token=[redacted]&Client_Secret=[redacted]&X-API-KEY=[redacted]&refresh%5Ftoken=[redacted]&q=ok',
    );
    expect(redactUrl('/a?password=x&pwd=y&code=z&apikey=w&key=v&secret=u&session=s')).toBe(
      '/a?password=[redacted]&pwd=[redacted]&code=[redacted]&apikey=[redacted]&key=[redacted]&secret=[redacted]&session=[redacted]',
    );
  });

  it('redacts our secrets under any name, bare, percent-encoded, and in path segments', () => {
    expect(redactUrl('/a?q=svc_at_abc&x=Bearer%20svc%5Fcs_def&svc_org_ghi&next=%2Fb%3Fk%3Dsvc_sess_x')).toBe('/a?q=[redacted]&x=[redacted]&[redacted]&next=[redacted]');
    expect(redactUrl('/api/catalog/tools/svc_at_abc/revisions')).toBe('/api/catalog/tools/[redacted]/revisions');
    expect(redactUrl('/api/catalog/tools/%73vc_at_abc?limit=1')).toBe('/api/catalog/tools/[redacted]?limit=1');
  });
});
