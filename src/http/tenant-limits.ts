import { AppError } from './errors.js';

/**
 * Bounded tenants (issue 32): the most of each resource an organization or a developer may have at once,
 * a default each, overridable per tenant by the operator (`switchboard org limits`, `switchboard developer
 * limits`; stored as JSON in `orgs.limits` and `developers.limits`). Creating past a limit answers 409
 * LIMIT_REACHED naming the resource, the limit and what to do. Records that grow with traffic (submissions,
 * conversations, call logs) are bounded by rate limits, not by a count.
 *
 * `refuseAtLimit` is the one "count and refuse" every feature calls, in the transaction of its insert, after
 * the tenant's row is locked (`LimitLock.lockLimits`): two creates racing at the limit cannot both pass.
 * PostgreSQL: the second waits on the row lock and then counts the first one's row. SQLite: one writer, and
 * one connection per process that a transaction holds to its end.
 */

export interface LimitDefinition {
  /** The limit a tenant without an override has. */
  default: number;
  /** What is counted, plural and singular: "forms", "active API keys"; "form". */
  noun: string;
  one: string;
  /** What the tenant can do itself, said before "or ask your Switchboard operator…". */
  remedy: string;
  /** Who has them, when not the tenant itself ("This agent"). */
  holder?: string;
}

export interface TenantKind<K extends string> {
  /** "This organization", "Your developer account". */
  holder: string;
  /** The CLI command that shows and raises the limits: `org limits`. */
  command: string;
  limits: Record<K, LimitDefinition>;
}

export const ORG_LIMITS = {
  holder: 'This organization',
  command: 'org limits',
  limits: {
    agents: { default: 50, noun: 'agents', one: 'agent', remedy: 'Delete an agent you no longer use' },
    forms: { default: 100, noun: 'forms', one: 'form', remedy: 'Delete a form you no longer need' },
    apiKeys: { default: 50, noun: 'active API keys', one: 'active API key', remedy: 'Revoke or delete a key you no longer use' },
    agentKeysPerAgent: { default: 20, noun: 'keys', one: 'key', holder: 'This agent', remedy: 'Delete a key you no longer use' },
    modelProviders: { default: 20, noun: 'model providers', one: 'model provider', remedy: 'Delete a provider you no longer use' },
    customFields: { default: 100, noun: 'custom fields (archived ones count until deleted)', one: 'custom field (archived ones count until deleted)', remedy: 'Delete a field you no longer need' },
    pipelines: { default: 20, noun: 'pipelines', one: 'pipeline', remedy: 'Delete a pipeline you no longer use' },
    pendingInvitations: { default: 100, noun: 'pending invitations', one: 'pending invitation', remedy: 'Revoke one you no longer need (unanswered ones lapse after 7 days)' },
    // GitHub allows 20 per repository, Stripe 16 per account: every event writes one delivery per subscribed webhook
    // in the transaction of the change that caused it, so this bounds what one submission writes (3 events × 20).
    webhooks: { default: 20, noun: 'webhooks', one: 'webhook', remedy: 'Delete one you no longer use, or send several event types to one URL' },
  },
} as const satisfies TenantKind<string>;

export const DEVELOPER_LIMITS = {
  holder: 'Your developer account',
  command: 'developer limits',
  limits: {
    apps: { default: 25, noun: 'apps', one: 'app', remedy: 'Delete an app you no longer use' },
    tools: { default: 100, noun: 'tools', one: 'tool', remedy: 'Delete a tool you no longer need' },
  },
} as const satisfies TenantKind<string>;

export type OrgLimit = keyof typeof ORG_LIMITS.limits;
export type DeveloperLimit = keyof typeof DEVELOPER_LIMITS.limits;

/** The largest limit the CLI sets: far past any real need, well inside an integer. */
export const MAX_LIMIT = 1_000_000;

/** `agentKeysPerAgent` → `agent-keys-per-agent`: a limit's CLI option. */
export const limitOption = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every limit of a tenant: its override where it has one, else the default. Stored values that are not whole numbers are ignored. */
export function limitsOf<K extends string>(kind: TenantKind<K>, stored: string | null | undefined): Record<K, number> {
  const overrides = parseOverrides(kind, stored);
  return Object.fromEntries(Object.entries<LimitDefinition>(kind.limits).map(([name, definition]) => [name, overrides[name as K] ?? definition.default])) as Record<K, number>;
}

function parseOverrides<K extends string>(kind: TenantKind<K>, stored: string | null | undefined): Partial<Record<K, number>> {
  if (stored === null || stored === undefined) return {};
  const parsed = JSON.parse(stored) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(parsed).filter(([name, value]) => Object.hasOwn(kind.limits, name) && Number.isSafeInteger(value) && (value as number) >= 0)) as Partial<Record<K, number>>;
}

/** The 409 of a create past a limit: the resource, the limit, what the tenant can do, and the command that raises it. */
export function limitReached<K extends string>(kind: TenantKind<K>, resource: K, tenantId: string, used: number, limit: number): AppError {
  const definition = kind.limits[resource];
  const holder = definition.holder ?? kind.holder;
  const state = used > limit ? `more than the ${limit} it may have` : 'the most it may have';
  return new AppError(
    'LIMIT_REACHED',
    `${holder} has ${used} ${used === 1 ? definition.one : definition.noun}, ${state}. ${definition.remedy}, or ask your Switchboard operator to raise the limit (switchboard ${kind.command} ${tenantId} --${limitOption(resource)} <n>).`,
    { extra: { resource, limit } },
  );
}

/** The tenant's row, read in a unit of work. */
export interface LimitLock {
  /**
   * The tenant's stored overrides (JSON text, null for none; undefined when there is no such tenant), its row
   * locked until the transaction ends where the database has row locks.
   */
  lockLimits(tenantId: string): Promise<string | null | undefined>;
}

/**
 * The one "count and refuse": inside the unit of work that then inserts, locks the tenant's row, counts with
 * `count` (the unit's repos, not the pool: on SQLite the pool would wait for the connection the unit holds)
 * and refuses with 409 LIMIT_REACHED when the tenant has its limit already.
 */
export async function refuseAtLimit<K extends string>(kind: TenantKind<K>, lock: LimitLock, tenantId: string, resource: K, count: () => Promise<number>): Promise<void> {
  const limit = limitsOf(kind, await lock.lockLimits(tenantId))[resource];
  const used = await count();
  if (used >= limit) throw limitReached(kind, resource, tenantId, used, limit);
}

/** `refuseAtLimit` for an organization's resource: `repos.orgs` locks the org's row. */
export const refuseAtOrgLimit = (repos: { orgs: LimitLock }, orgId: string, resource: OrgLimit, count: () => Promise<number>): Promise<void> =>
  refuseAtLimit(ORG_LIMITS, repos.orgs, orgId, resource, count);

/** `refuseAtLimit` for a developer's resource: `repos.developers` locks the developer's row. */
export const refuseAtDeveloperLimit = (repos: { developers: LimitLock }, developerId: string, resource: DeveloperLimit, count: () => Promise<number>): Promise<void> =>
  refuseAtLimit(DEVELOPER_LIMITS, repos.developers, developerId, resource, count);

/** Where a tenant's overrides live: its owner's repo (orgs/, developers/). */
export interface LimitStore extends LimitLock {
  /** The stored overrides without a lock; undefined when there is no such tenant. */
  readLimits(tenantId: string): Promise<string | null | undefined>;
  saveLimits(tenantId: string, stored: string | null): Promise<unknown>;
}

/** A limit and how much of it is used. */
export interface LimitUsage {
  limit: number;
  used: number;
}

/**
 * Showing and changing one kind of tenant's limits: the API's GET …/limits (each limit and its use) and the
 * CLI's `org limits` / `developer limits`. `usage` counts each resource as its create counts it (the same repo
 * functions, so the two agree).
 */
export function createTenantLimits<K extends string, R>(deps: {
  kind: TenantKind<K>;
  /** A unit of work in one transaction (db/transaction-runner.ts's Transact). */
  transact: <T>(unit: (repos: R) => Promise<T>) => Promise<T>;
  store: (repos: R) => LimitStore;
  pool: LimitStore;
  usage: Record<K, (tenantId: string) => Promise<number>>;
  notFound: () => AppError;
}) {
  const { kind, transact, store, pool, usage, notFound } = deps;
  const names = Object.keys(kind.limits) as K[];

  async function show(tenantId: string): Promise<Record<K, LimitUsage>> {
    const stored = await pool.readLimits(tenantId);
    if (stored === undefined) throw notFound();
    const limits = limitsOf(kind, stored);
    const used = await Promise.all(names.map((name) => usage[name](tenantId)));
    return Object.fromEntries(names.map((name, i) => [name, { limit: limits[name], used: used[i]! }])) as Record<K, LimitUsage>;
  }

  /** Sets the limits given (null: back to the default; a value equal to the default is stored as no override). Limits below what is used stop new creates only. */
  async function set(tenantId: string, changes: Partial<Record<K, number | null>>): Promise<Record<K, LimitUsage>> {
    for (const [name, value] of Object.entries(changes)) {
      if (!Object.hasOwn(kind.limits, name)) throw new AppError('VALIDATION_ERROR', `There is no limit named ${name}.`, { field: name });
      if (value !== null && (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_LIMIT)) {
        throw new AppError('VALIDATION_ERROR', `The ${name} limit is a whole number from 0 to ${MAX_LIMIT.toLocaleString('en-US')}.`, { field: name });
      }
    }
    await transact(async (repos) => {
      const tenant = store(repos);
      const stored = await tenant.lockLimits(tenantId);
      if (stored === undefined) throw notFound();
      const overrides = parseOverrides(kind, stored);
      for (const [name, value] of Object.entries(changes) as Array<[K, number | null]>) {
        if (value === null || value === kind.limits[name].default) delete overrides[name];
        else overrides[name] = value;
      }
      await tenant.saveLimits(tenantId, Object.keys(overrides).length > 0 ? JSON.stringify(overrides) : null);
    });
    return show(tenantId);
  }

  return { show, set };
}

export type TenantLimits<K extends string> = ReturnType<typeof createTenantLimits<K, unknown>>;
