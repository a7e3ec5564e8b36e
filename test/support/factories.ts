import type { App } from '../../src/http/app-type.js';
import { Repos, transactOn } from '../../src/repos.js';
import { createPasswordPolicy } from '../../src/lib/passwords.js';
import { createDevelopersService, type Developer, type RegisteredApp } from '../../src/developers/service.js';
import type { Database } from '../../src/db/database.js';
import { randomBase62 } from '../../src/lib/ids.js';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';
import type { Clock } from '../../src/lib/clock.js';

export interface DeveloperWithApp {
  developer: Developer;
  app: RegisteredApp;
}

/** A developer account with one app, through the same service the CLI uses. */
export async function createDeveloperWithApp(database: Database, clock: Clock, options: { scopes?: string; name?: string } = {}): Promise<DeveloperWithApp> {
  const repos = new Repos(database.db);
  const accounts = createDevelopersService({ repo: repos.developers, transact: transactOn(database.db), people: repos.operators, passwords: createPasswordPolicy(new Set(), TEST_PASSWORD_HASH_COST), clock });
  const suffix = randomBase62(8).toLowerCase();
  const developer = await accounts.createDeveloper({ email: `dev-${suffix}@example.com`, password: 'correct horse battery', name: options.name ?? `Dev ${suffix}` });
  const app = await accounts.createApp({ developerEmail: developer.email, name: `App ${suffix}`, ...(options.scopes !== undefined ? { scopes: options.scopes } : {}) });
  return { developer, app };
}

/** An access token from the real token endpoint. */
export async function getAccessToken(app: App, credentials: Pick<RegisteredApp, 'clientId' | 'clientSecret'>, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret });
  if (scope !== undefined) form.set('scope', scope);
  const res = await app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

/** A developer with an app and a token holding `scope` (default: all scopes). */
export async function developerSession(database: Database, clock: Clock, app: App, scope?: string) {
  const created = await createDeveloperWithApp(database, clock);
  const token = await getAccessToken(app, created.app, scope);
  return { ...created, token, auth: { authorization: `Bearer ${token}` } };
}
