import { normalizeEmail } from '../crm/normalize.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashPassword, hashSecret } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import { SCOPES, formatScopes, isScope, parseScopeList } from '../oauth/scopes.js';
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
    const unknown = requested.filter((scope) => !isScope(scope));
    if (unknown.length > 0 || requested.length === 0) {
      throw new AppError('VALIDATION_ERROR', `Scopes must be among: ${SCOPES.join(' ')}.`, { field: 'scopes' });
    }
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter an app name of 1 to 100 characters.', { field: 'name' });
    const clientSecret = newSecret('svc_cs');
    const app = {
      id: newId('app'),
      developer_id: developer.id,
      name,
      client_secret_hash: hashSecret(clientSecret),
      scopes: formatScopes(requested),
      created_at: isoNow(clock),
      secret_rotated_at: null,
      disabled_at: null,
    };
    await repo.insertApp(app);
    return { clientId: app.id, clientSecret, name, developerId: developer.id, scopes: app.scopes, createdAt: app.created_at };
  }

  return { createDeveloper, createApp };
}

export type DevelopersService = ReturnType<typeof createDevelopersService>;
