import type { Kysely } from 'kysely';
import { insertDefaultPipeline } from '../crm/default-pipeline.js';
import { normalizeEmail } from '../crm/normalize.js';
import { isUniqueViolation } from '../db/query-helpers.js';
import type { DB } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashPassword } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { issueApiKey } from './api-keys-service.js';
import { createOrgsRepo } from './repo.js';
import type { CreatedApiKey } from './schema.js';

export interface NewOrganization {
  name: string;
  email: string;
  password: string;
  /** The operator's display name; defaults to the part of the email before the @. */
  operatorName?: string;
  /** ISO 3166 alpha-2, for reading national phone numbers; default US. */
  defaultCountry?: string;
}

export interface CreatedOrganization {
  org: { id: string; name: string; defaultCountry: string; createdAt: string };
  operator: { id: string; email: string; name: string };
  /** Shown once: only its hash is stored. */
  apiKey: CreatedApiKey;
}

export const MIN_PASSWORD = 10;

/** Creating an organization: its first operator, a first API key and the default pipeline, in one transaction. */
export function createOrgsService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  async function createOrganization(input: NewOrganization): Promise<CreatedOrganization> {
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter an organization name of 1 to 100 characters.', { field: 'name' });
    const email = normalizeEmail(input.email);
    if (!email.ok) throw new AppError('VALIDATION_ERROR', email.message, { field: 'email' });
    if (input.password.length < MIN_PASSWORD) {
      throw new AppError('VALIDATION_ERROR', `Use a password of at least ${MIN_PASSWORD} characters.`, { field: 'password' });
    }
    const country = (input.defaultCountry ?? 'US').toUpperCase();
    if (!/^[A-Z]{2}$/.test(country)) throw new AppError('VALIDATION_ERROR', 'The default country is a two-letter code such as US or FR.', { field: 'defaultCountry' });
    const operatorName = (input.operatorName ?? email.value.split('@')[0] ?? '').trim() || email.value;
    if (await createOrgsRepo(db).findUserByEmail(email.value)) {
      throw new AppError('CONFLICT', 'An operator with that email already exists.', { field: 'email' });
    }
    const passwordHash = await hashPassword(input.password);

    try {
      return await db.transaction().execute(async (trx) => {
      const repo = createOrgsRepo(trx);
      const now = isoNow(clock);
      const org = { id: newId('org'), name, default_country: country, created_at: now };
      await repo.insertOrg(org);
      const operator = { id: newId('usr'), org_id: org.id, email: email.value, name: operatorName, password_hash: passwordHash, created_at: now };
      await repo.insertUser(operator);
      await insertDefaultPipeline(trx, org.id, now);
      const apiKey = await issueApiKey(repo, org.id, 'Default key', now);
      return {
        org: { id: org.id, name, defaultCountry: country, createdAt: now },
        operator: { id: operator.id, email: operator.email, name: operator.name },
        apiKey,
      };
      });
    } catch (error) {
      // Two sign-ups with one email at the same moment: the unique index decides.
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'An operator with that email already exists.', { field: 'email' });
      throw error;
    }
  }

  return { createOrganization };
}

export type OrgsService = ReturnType<typeof createOrgsService>;
