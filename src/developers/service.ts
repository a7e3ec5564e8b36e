import { normalizeEmail } from '../crm/normalize.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashPassword } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { SCOPES, parseScopeList } from '../oauth/scopes.js';
import { appName, appScopes, newAppRow } from './app-rules.js';
import type { DevelopersRepo } from './repo.js';

export interface Developer {
  id: string;
  email: string;
  name: string;
  createdAt: string;
}

export interface RegisteredApp {
  clientId: string;
  /** Shown once, at creation or rotation; only its hash is stored. */
  clientSecret: string;
  name: string;
  developerId: string;
  scopes: string;
  createdAt: string;
}

/** Developer accounts and their OAuth apps (client_id = the app id, `app_…`). */
export function createDevelopersService(deps: { repo: DevelopersRepo; clock: Clock }) {
  const { repo, clock } = deps;

  async function createDeveloper(input: { email: string; password: string; name: string }): Promise<Developer> {
    const normalized = normalizeEmail(input.email);
    if (!normalized.ok) throw new AppError('VALIDATION_ERROR', normalized.message, { field: 'email' });
    const email = normalized.value;
    if (input.password.length < 10) throw new AppError('VALIDATION_ERROR', 'Use a password of at least 10 characters.', { field: 'password' });
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter a name of 1 to 100 characters.', { field: 'name' });
    if (await repo.findDeveloperByEmail(email)) throw new AppError('CONFLICT', 'A developer with that email already exists.', { field: 'email' });
    const developer = { id: newId('dev'), email, name, password_hash: await hashPassword(input.password), created_at: isoNow(clock) };
    await repo.insertDeveloper(developer);
    return { id: developer.id, email, name, createdAt: developer.created_at };
  }

  async function createApp(input: { developerEmail: string; name: string; scopes?: string }): Promise<RegisteredApp> {
    const email = normalizeEmail(input.developerEmail);
    const developer = email.ok ? await repo.findDeveloperByEmail(email.value) : undefined;
    if (!developer) throw new AppError('NOT_FOUND', `No developer has the email ${input.developerEmail}.`, { field: 'developer' });
    const requested = input.scopes === undefined ? [...SCOPES] : parseScopeList(input.scopes);
    // The portal's POST /api/dev/apps applies the same rules (app-rules.ts).
    const scopes = appScopes(requested);
    const name = appName(input.name);
    const { row: app, clientSecret } = newAppRow({ developerId: developer.id, name, scopes, now: isoNow(clock) });
    await repo.insertApp(app);
    return { clientId: app.id, clientSecret, name, developerId: developer.id, scopes: app.scopes, createdAt: app.created_at };
  }

  return { createDeveloper, createApp };
}

export type DevelopersService = ReturnType<typeof createDevelopersService>;
