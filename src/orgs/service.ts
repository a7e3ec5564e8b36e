import { isSupportedCountry } from 'libphonenumber-js/max';
import { normalizeEmail } from '../lib/normalize.js';
import { isUniqueViolation } from '../db/query-helpers.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import { isoNow, utcDay, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { PasswordPolicy } from '../lib/passwords.js';
import type { OrgsTable, UsersTable } from '../db/tables.js';
import { presentAgent } from './agents-service.js';
import { issueApiKey } from './api-keys-service.js';
import type { OrgChangeFeed } from './changes.js';
import { orgNotFound } from './errors.js';
import type { OrgsRepo } from './repo.js';
import type { Branding, CreatedApiKey, Organization, OrganizationPatch } from './schema.js';
import { requiredText } from '../http/required-text.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditLog } from '../audit/service.js';
import { NO_RETENTION, presentRetention, retentionChanges, type RetentionColumn } from './retention.js';

export interface NewOrganization {
  name: string;
  email: string;
  password: string;
  /** The operator's display name; defaults to the part of the email before the @. */
  operatorName?: string;
  /** ISO 3166-1 alpha-2, for reading national phone numbers; default US. See `checkDefaultCountry()`. */
  defaultCountry?: string;
}

export interface CreatedOrganization {
  org: Organization;
  operator: { id: string; email: string; name: string };
  /** Shown once: only its hash is stored. */
  apiKey: CreatedApiKey;
}

export const MIN_PASSWORD = 10;

/** Codes people often write for a country, and the ISO 3166-1 code it has. */
const COMMON_MISTAKES: Record<string, { code: string; country: string }> = {
  UK: { code: 'GB', country: 'the United Kingdom' },
  EL: { code: 'GR', country: 'Greece' },
};

/**
 * The one rule for an organization's default country, shared by the CLI and the Operator API:
 * an ISO 3166-1 alpha-2 code that the phone library has numbering plans for (any case, stored
 * in capitals). Anything else would make every national phone number of the org unreadable.
 */
export function checkDefaultCountry(raw: string): string {
  const code = raw.trim().toUpperCase();
  const refuse = (message: string) => new AppError('VALIDATION_ERROR', message, { field: 'defaultCountry' });
  if (!/^[A-Z]{2}$/.test(code)) throw refuse('The default country is a two-letter ISO 3166-1 code such as US, GB or FR.');
  const mistake = COMMON_MISTAKES[code];
  if (mistake) throw refuse(`${code} is not an ISO 3166-1 country code: use ${mistake.code} for ${mistake.country}.`);
  if (!isSupportedCountry(code)) throw refuse(`${code} is not a country code we can read phone numbers for. Use a two-letter ISO 3166-1 code such as US, GB or FR.`);
  return code;
}

function presentOrg(row: OrgsTable, tokensUsedToday: number): Organization {
  return { id: row.id, name: row.name, defaultCountry: row.default_country, createdAt: row.created_at, dailyTokenBudget: row.daily_token_budget, tokensUsedToday, retention: presentRetention(row) };
}

/** A new org as `found` sees it: its row, written already, and its first operator, an owner, to write (`users` is operators/'). */
export interface FoundedOrg {
  org: OrgsTable;
  owner: UsersTable;
}

/**
 * What an org's creation writes besides its own rows, inside its transaction and through the unit's
 * repos `R`: the first operator (operators/ writes users) and the default pipeline (crm/). A step of
 * the composition root (org-founding.ts, passed in by services.ts), since both features build on
 * orgs/ and orgs/ imports neither: a repo writes only its own feature's tables (db/table-owners.ts).
 */
export type FoundOrg<R> = (repos: R, founded: FoundedOrg) => Promise<void>;

/**
 * Organizations: creating one (its first operator and the default pipeline through `found`, and a
 * first API key, in one transaction), reading it and changing its settings, and what other features
 * read about an org (its default country, an agent's brand). `changes`: a new default country, which live forms cache with
 * the form, notifies it, so the org's cached public forms are dropped. `tokensUsedOn`: the tokens the org's
 * agent conversations used on a UTC day (the conversations feature counts them; its repo answers, services.ts).
 */
export function createOrgsService<R extends { orgs: OrgsRepo }>(deps: {
  repo: OrgsRepo;
  transact: Transact<R>;
  found: FoundOrg<R>;
  clock: Clock;
  changes: OrgChangeFeed;
  tokensUsedOn: (orgId: string, day: string) => Promise<number>;
  /** The first operator's password hash, at the configured cost (lib/passwords.ts). */
  passwords: Pick<PasswordPolicy, 'hash'>;
  /** Settings changes are recorded (org.settings_changed). */
  audit: AuditLog;
}) {
  const { repo, transact, found, clock, changes, tokensUsedOn, passwords, audit } = deps;

  /**
   * The org, its first operator (an owner), the default pipeline and, with `issueKey`, a first API
   * key, in one transaction. The CLI's `org create` and the console's sign-up both come here.
   */
  async function insertOrganization(input: NewOrganization, issueKey: boolean): Promise<{ org: Organization; operator: CreatedOrganization['operator']; apiKey: CreatedApiKey | undefined }> {
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter an organization name of 1 to 100 characters.', { field: 'name' });
    const email = normalizeEmail(input.email);
    if (!email.ok) throw new AppError('VALIDATION_ERROR', email.message, { field: 'email' });
    if (input.password.length < MIN_PASSWORD) {
      throw new AppError('VALIDATION_ERROR', `Use a password of at least ${MIN_PASSWORD} characters.`, { field: 'password' });
    }
    const country = checkDefaultCountry(input.defaultCountry ?? 'US');
    const operatorName = (input.operatorName ?? email.value.split('@')[0] ?? '').trim() || email.value;
    if (await repo.findUserByEmail(email.value)) {
      throw new AppError('CONFLICT', 'An operator with that email already exists.', { field: 'email' });
    }
    const passwordHash = await passwords.hash(input.password);

    try {
      return await transact(async (repos) => {
      const now = isoNow(clock);
      const org: OrgsTable = { id: newId('org'), name, default_country: country, created_at: now, daily_token_budget: null, limits: null, ...NO_RETENTION };
      await repos.orgs.insertOrg(org);
      const operator: UsersTable = { id: newId('usr'), org_id: org.id, email: email.value, name: operatorName, password_hash: passwordHash, role: 'owner', created_at: now };
      await found(repos, { org, owner: operator });
      const apiKey = issueKey ? await issueApiKey(repos.orgs, org.id, 'Default key', now) : undefined;
      return {
        org: presentOrg(org, 0),
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

  /** The CLI's `org create`: the org with a first API key (shown once). */
  async function createOrganization(input: NewOrganization): Promise<CreatedOrganization> {
    const { org, operator, apiKey } = await insertOrganization(input, true);
    return { org, operator, apiKey: apiKey! };
  }

  /** The console's sign-up: the same org, without an API key nobody would see (the owner makes keys in the console). */
  async function signUpOrganization(input: NewOrganization): Promise<Omit<CreatedOrganization, 'apiKey'>> {
    const { org, operator } = await insertOrganization(input, false);
    return { org, operator };
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

  async function getOrganization(orgId: string): Promise<Organization> {
    const row = await repo.findOrg(orgId);
    if (!row) throw orgNotFound();
    return presentOrg(row, await tokensUsedOn(orgId, utcDay(clock)));
  }

  /**
   * Changes only what is given. A new default country drops the org's cached live forms, which read phones with it.
   * The daily token budget is an owner's to set (`owner`: an org API key or an owner's session): it caps what the
   * organization spends on its model providers, as API keys and members are the owner's to manage. So is retention:
   * how long the organization keeps personal data (docs/privacy.md).
   */
  async function updateOrganization(orgId: string, patch: OrganizationPatch, actor: { owner: boolean }, context: AuditContext): Promise<Organization> {
    if (patch.dailyTokenBudget !== undefined && !actor.owner) {
      throw new AppError('FORBIDDEN', 'Only an owner of the organization can set its daily model token budget. Ask an owner to do it.', { field: 'dailyTokenBudget' });
    }
    if (patch.retention !== undefined && !actor.owner) {
      throw new AppError('FORBIDDEN', 'Only an owner of the organization can change how long its data is kept. Ask an owner to do it.', { field: 'retention' });
    }
    const set: Partial<Pick<OrgsTable, 'name' | 'default_country' | 'daily_token_budget' | RetentionColumn>> = {};
    if (patch.name !== undefined) set.name = requiredText(patch.name, 'name', 'an organization name');
    if (patch.defaultCountry !== undefined) set.default_country = checkDefaultCountry(patch.defaultCountry);
    if (patch.dailyTokenBudget !== undefined) set.daily_token_budget = patch.dailyTokenBudget;
    if (patch.retention !== undefined) Object.assign(set, retentionChanges(patch.retention));
    const before = await repo.findOrg(orgId);
    if (!before) throw orgNotFound();
    if (Object.keys(set).length > 0) await repo.updateOrg(orgId, set);
    // What changed, old and new: a name, a country code, a budget (no personal data).
    const changed: Record<string, string | number | null> = {};
    if (set.name !== undefined && set.name !== before.name) Object.assign(changed, { nameFrom: before.name, nameTo: set.name });
    if (set.default_country !== undefined && set.default_country !== before.default_country) Object.assign(changed, { defaultCountryFrom: before.default_country, defaultCountryTo: set.default_country });
    if (set.daily_token_budget !== undefined && set.daily_token_budget !== before.daily_token_budget) Object.assign(changed, { dailyTokenBudgetFrom: before.daily_token_budget, dailyTokenBudgetTo: set.daily_token_budget });
    if (Object.keys(changed).length > 0) await audit.record(context, { action: 'org.settings_changed', orgId, target: orgId, details: changed });
    if (set.default_country !== undefined && set.default_country !== before.default_country) changes.notify(orgId);
    const after = { ...before, ...set };
    // How long personal data is kept: each setting that changed, old and new (numbers of days or null).
    const kept: Record<string, number | null> = {};
    const [was, now] = [presentRetention(before), presentRetention(after)];
    for (const key of Object.keys(now) as (keyof typeof now)[]) if (was[key] !== now[key]) Object.assign(kept, { [`${key}From`]: was[key], [`${key}To`]: now[key] });
    if (Object.keys(kept).length > 0) await audit.record(context, { action: 'org.retention_changed', orgId, target: orgId, details: kept });
    return presentOrg(after, await tokensUsedOn(orgId, utcDay(clock)));
  }

  /** The most model tokens the org's conversations may use per UTC day; null: no limit (or no such org). */
  const dailyTokenBudget = (orgId: string): Promise<number | null> => repo.orgDailyTokenBudget(orgId);

  return { createOrganization, signUpOrganization, getOrganization, updateOrganization, defaultCountry, agentBranding, dailyTokenBudget };
}

export type OrgsService = ReturnType<typeof createOrgsService>;
