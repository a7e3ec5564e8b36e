import { insertDefaultPipeline } from '../crm/default-pipeline.js';
import { normalizeEmail } from '../crm/normalize.js';
import type { CrmRepo } from '../crm/repo.js';
import { isUniqueViolation } from '../db/query-helpers.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashPassword } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { presentAgent } from './agents-service.js';
import { issueApiKey, type CreatedApiKey } from './api-keys-service.js';
import type { OrgChangeFeed } from './changes.js';
import type { OrgsRepo } from './repo.js';
import type { Branding } from './schema.js';

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

/** The repos an org's creation writes with, in one transaction: the org's, and the CRM's for its default pipeline. */
export interface OrgsRepos {
  orgs: OrgsRepo;
  crm: Pick<CrmRepo, 'insertPipeline' | 'insertStages'>;
}

/**
 * Organizations: creating one (its first operator, a first API key and the default pipeline,
 * in one transaction), and what other features read about an org (its default country, an
 * agent's brand). `changes`: an edit of an org setting that forms use (the default country)
 * notifies it, so cached public forms are dropped.
 */
export function createOrgsService(deps: { repo: OrgsRepo; transact: Transact<OrgsRepos>; clock: Clock; changes: OrgChangeFeed }) {
  const { repo, transact, clock } = deps;

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
    if (await repo.findUserByEmail(email.value)) {
      throw new AppError('CONFLICT', 'An operator with that email already exists.', { field: 'email' });
    }
    const passwordHash = await hashPassword(input.password);

    try {
      return await transact(async (repos) => {
      const now = isoNow(clock);
      const org = { id: newId('org'), name, default_country: country, created_at: now };
      await repos.orgs.insertOrg(org);
      const operator = { id: newId('usr'), org_id: org.id, email: email.value, name: operatorName, password_hash: passwordHash, created_at: now };
      await repos.orgs.insertUser(operator);
      await insertDefaultPipeline(repos.crm, org.id, now);
      const apiKey = await issueApiKey(repos.orgs, org.id, 'Default key', now);
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

  /**
   * The country national phone numbers are read in (ISO 3166 alpha-2; US when the org has none).
   * Inside a transaction pass its repos: on SQLite a read on the pool would wait for the very
   * connection the transaction holds.
   */
  async function defaultCountry(orgId: string, repos?: { orgs: OrgsRepo }): Promise<string> {
    return (await (repos?.orgs ?? repo).orgDefaultCountry(orgId)) ?? 'US';
  }

  /** The agent's brand as public forms show it, or null when there is no agent, it is gone, or it has no logo. */
  async function agentBranding(orgId: string, agentId: string | null): Promise<Branding | null> {
    if (agentId === null) return null;
    const agent = await repo.findAgent(orgId, agentId);
    // The API requires a logo; a row without one (written around the API) counts as unresolved.
    if (!agent || agent.logo_url === null) return null;
    return presentAgent(agent).branding;
  }

  return { createOrganization, defaultCountry, agentBranding };
}

export type OrgsService = ReturnType<typeof createOrgsService>;
