import { normalizeEmail } from '../lib/normalize.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { isUniqueViolation } from '../db/query-helpers.js';
import type { UsersTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { verifyPassword } from '../lib/hashing.js';
import type { PasswordPolicy } from '../lib/passwords.js';
import { newId } from '../lib/ids.js';
import { SCOPES, parseScopeList } from '../oauth/scopes.js';
import { appName, appScopes, insertNewApp, newAppRow } from './app-rules.js';
import type { AppsRepo } from './apps-repo.js';
import type { DevelopersRepo } from './repo.js';
import { developerNotFound } from './errors.js';

export interface Developer {
  id: string;
  /** The person's (`users`): one email, one password, for the console and the Developer API alike. */
  email: string;
  /** The display name the catalog shows. */
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

export const ALREADY_A_DEVELOPER = 'This account is a developer already.';

/** A developer's display name: 1 to 100 characters, trimmed. */
export function developerName(raw: string, field = 'name'): string {
  const name = raw.trim();
  if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter a developer name of 1 to 100 characters.', { field });
  return name;
}

/**
 * Makes a person a developer: their developer account, with its display name. The one place that
 * writes a new developer (sign-up, `POST /api/auth/developer`, the CLI); pass the repos of the unit
 * of work it belongs to. 409 CONFLICT when the person is a developer already (also under a race: the
 * unique index on `developers.user_id`).
 */
export async function insertDeveloperAccount(repo: DevelopersRepo, clock: Clock, person: { id: string; email: string }, name: string): Promise<Developer> {
  if (await repo.findDeveloperByUserId(person.id)) throw new AppError('CONFLICT', ALREADY_A_DEVELOPER);
  const row = { id: newId('dev'), user_id: person.id, name: developerName(name), created_at: isoNow(clock), limits: null };
  try {
    await repo.insertDeveloper(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('CONFLICT', ALREADY_A_DEVELOPER);
    throw error;
  }
  return { id: row.id, email: person.email, name: row.name, createdAt: row.created_at };
}

/**
 * What this service needs of people (`users`: a developer account is a person's), which operators/
 * owns and writes (operators/repo.ts, handed in by services.ts): operators/ builds on developers/,
 * not the other way round.
 */
export interface PeopleRepo {
  findUserByEmail(email: string): Promise<UsersTable | undefined>;
  insertUser(row: UsersTable): Promise<unknown>;
}

export interface DevelopersDeps {
  repo: DevelopersRepo;
  /** The CLI's developer creation writes a person and their developer account together. */
  transact: Transact<{ operators: Pick<PeopleRepo, 'insertUser'>; developers: DevelopersRepo; apps: AppsRepo }>;
  /** Reads the person an email belongs to. */
  people: Pick<PeopleRepo, 'findUserByEmail'>;
  passwords: PasswordPolicy;
  clock: Clock;
}

/** Developer accounts and their OAuth apps (client_id = the app id, `app_…`). */
export function createDevelopersService(deps: DevelopersDeps) {
  const { repo, transact, people, passwords, clock } = deps;

  /**
   * `switchboard developer create`: a person without an organization and their developer account.
   * An email that already has a person (an operator) is refused 409 CONFLICT, saying to sign in and
   * become a developer in the console — unless `password` is that person's, which proves it is them:
   * then their developer account is made, and they keep their one password.
   */
  async function createDeveloper(input: { email: string; password: string; name: string }): Promise<Developer> {
    const normalized = normalizeEmail(input.email);
    if (!normalized.ok) throw new AppError('VALIDATION_ERROR', normalized.message, { field: 'email' });
    const email = normalized.value;
    const name = developerName(input.name);
    const person = await people.findUserByEmail(email);
    if (person) {
      if (await repo.findDeveloperByUserId(person.id)) throw new AppError('CONFLICT', 'A developer with that email already exists.', { field: 'email' });
      if (!(await verifyPassword(input.password, person.password_hash))) {
        throw new AppError(
          'CONFLICT',
          `${email} already has a console account. Sign in to the console with it and become a developer there (Developer), or run this command with that account's password to link it.`,
          { field: 'email' },
        );
      }
      return insertDeveloperAccount(repo, clock, person, name);
    }
    const refusal = passwords.refusal(input.password);
    if (refusal !== undefined) throw new AppError('VALIDATION_ERROR', refusal, { field: 'password' });
    const user = { id: newId('usr'), org_id: null, role: null, email, name, password_hash: await passwords.hash(input.password), created_at: isoNow(clock) };
    try {
      return await transact(async (repos) => {
        await repos.operators.insertUser(user);
        return insertDeveloperAccount(repos.developers, clock, user, name);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'A developer with that email already exists.', { field: 'email' });
      throw error;
    }
  }

  /** The developer account of a person, or undefined. */
  async function developerOf(userId: string): Promise<Developer | undefined> {
    const row = await repo.findDeveloperByUserId(userId);
    return row && { id: row.id, email: row.email, name: row.name, createdAt: row.created_at };
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
    // The portal's POST /api/dev/apps inserts the same way: counted against the developer's limit.
    await transact((repos) => insertNewApp(repos, app));
    return { clientId: app.id, clientSecret, name, developerId: developer.id, scopes: app.scopes, createdAt: app.created_at };
  }

  /** The developer an id (`dev_…`) or an email names (the CLI's `developer limits`); 404 NOT_FOUND otherwise. */
  async function findDeveloper(idOrEmail: string): Promise<Developer> {
    const email = idOrEmail.startsWith('dev_') ? undefined : normalizeEmail(idOrEmail);
    const row = email === undefined ? await repo.findDeveloperById(idOrEmail) : email.ok ? await repo.findDeveloperByEmail(email.value) : undefined;
    if (!row) throw developerNotFound(email === undefined ? 'that id' : `the email ${idOrEmail}`);
    return { id: row.id, email: row.email, name: row.name, createdAt: row.created_at };
  }

  return { createDeveloper, developerOf, findDeveloper, createApp };
}

export type DevelopersService = ReturnType<typeof createDevelopersService>;
