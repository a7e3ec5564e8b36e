import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

/**
 * The tool endpoint of the tools benchmark: HTTPS on 127.0.0.1 only (PORT), with the test CA's
 * certificate (TLS_KEY_FILE, TLS_CERT_FILE), answering every request with a small JSON after
 * reading its body. Tells its parent over IPC when it listens.
 *
 * It is also the OAuth 2.0 provider of the benchmark's `oauth2` tool, as far as a connected call needs one:
 *
 * - `POST /oauth/token` answers every grant with OAUTH_ACCESS_TOKEN (a refresh token beside it) and
 *   `expires_in` OAUTH_EXPIRES_IN (seconds, default a day: no refresh falls inside a run);
 * - `/oauth/authorize` is the authorization URL, which the benchmark never visits (it reads the `state` from the
 *   URL and calls `/oauth/callback` itself), so it answers 400.
 *
 * Sent the IPC message `'stats'`, it answers `{ type: 'stats', tokenRequests: {grant_type: count}, authorizations:
 * {Authorization header: count} }`, so the benchmark can check what each path sent and that nothing refreshed.
 */
const body = Buffer.from(JSON.stringify({ quote: 12.5, currency: 'EUR', carrier: 'Bench Parcel', days: 3 }));
const accessToken = process.env.OAUTH_ACCESS_TOKEN ?? 'bench-oauth-access-token';
const expiresIn = Number(process.env.OAUTH_EXPIRES_IN ?? 86_400);
const tokenRequests: Record<string, number> = {};
const authorizations = new Map<string, number>();

function answerToken(form: string, response: import('node:http').ServerResponse): void {
  const grantType = new URLSearchParams(form).get('grant_type') ?? '(none)';
  tokenRequests[grantType] = (tokenRequests[grantType] ?? 0) + 1;
  const answer = Buffer.from(JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, refresh_token: 'bench-oauth-refresh-token', scope: 'quotes' }));
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length, 'cache-control': 'no-store' });
  response.end(answer);
}

const server = createServer({ key: readFileSync(process.env.TLS_KEY_FILE!), cert: readFileSync(process.env.TLS_CERT_FILE!), keepAliveTimeout: 30_000 }, (request, response) => {
  if (request.url === '/oauth/token') {
    let form = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { form += chunk; });
    request.on('end', () => answerToken(form, response));
    return;
  }
  if (request.url?.startsWith('/oauth/authorize')) {
    request.resume();
    response.writeHead(400, { 'content-type': 'text/plain' });
    response.end('The benchmark never visits the authorization URL.');
    return;
  }
  const authorization = request.headers.authorization ?? '';
  authorizations.set(authorization, (authorizations.get(authorization) ?? 0) + 1);
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('message', (message) => {
  if (message === 'stats') process.send?.({ type: 'stats', tokenRequests, authorizations: Object.fromEntries(authorizations) });
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
