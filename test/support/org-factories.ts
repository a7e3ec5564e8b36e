import pino from 'pino';
import { createAuditService } from '../../src/audit/service.js';
import type { App } from '../../src/http/app-type.js';
import type { Database } from '../../src/db/database.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { Clock } from '../../src/lib/clock.js';
import { createPasswordPolicy } from '../../src/lib/passwords.js';
import { createOrgChangeFeed } from '../../src/orgs/changes.js';
import { foundOrg } from '../../src/org-founding.js';
import { createOrgsService, type CreatedOrganization, type OrgsService } from '../../src/orgs/service.js';
import { Repos, transactOn } from '../../src/repos.js';
import { createLimits } from '../../src/services.js';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';

export interface OrgWithKey {
  orgId: string;
  /** The org API key (`svc_org_…`). */
  apiKey: string;
  /** Headers for app.inject: `{ headers: org.auth }`. */
  auth: { authorization: string };
  operator: CreatedOrganization['operator'];
  /** The default pipeline ("Sales") and its stages in order. */
  defaultPipeline: { id: string; stages: { id: string; name: string }[] };
}

/**
 * The orgs service alone over a test's database, for tests of organizations themselves and to
 * make their fixtures: no cache listens to its change feed (the app's, services.ts, has three).
 */
export function orgsServiceOn(database: Database, clock: Clock): OrgsService {
  const repos = new Repos(database.db);
  return createOrgsService({ repo: repos.orgs, transact: transactOn(database.db), found: foundOrg, clock, changes: createOrgChangeFeed(), tokensUsedOn: repos.conversations.tokensUsedOn, passwords: createPasswordPolicy(new Set(), TEST_PASSWORD_HASH_COST), audit: createAuditService({ repo: repos.audit, clock, log: pino({ level: 'silent' }) }) });
}

/**
 * The limits of organizations and developers over a test's database, as services.ts builds them: `set` is what
 * `switchboard org limits` and `switchboard developer limits` call, so a test can lower a limit to meet it quickly.
 */
export function limitsOn(database: Database, clock: Clock): ReturnType<typeof createLimits> {
  return createLimits(new Repos(database.db), transactOn(database.db), clock);
}

/**
 * An organization with its operator, an API key and the default pipeline, through the orgs
 * service (the password hashed at the tests' cost, TEST_PASSWORD_HASH_COST).
 */
export async function createOrgWithKey(database: Database, clock: Clock, options: { name?: string; defaultCountry?: string } = {}): Promise<OrgWithKey> {
  const suffix = randomBase62(8).toLowerCase();
  const created = await orgsServiceOn(database, clock).createOrganization({
    name: options.name ?? `Org ${suffix}`,
    email: `operator-${suffix}@example.com`,
    password: 'correct horse battery',
    ...(options.defaultCountry !== undefined ? { defaultCountry: options.defaultCountry } : {}),
  });
  const orgId = created.org.id;
  const pipeline = await database.db.selectFrom('pipelines').select('id').where('org_id', '=', orgId).where('is_default', '=', 1).executeTakeFirstOrThrow();
  const stages = await database.db.selectFrom('stages').select(['id', 'name']).where('pipeline_id', '=', pipeline.id).orderBy('position').execute();
  return {
    orgId,
    apiKey: created.apiKey.key,
    auth: { authorization: `Bearer ${created.apiKey.key}` },
    operator: created.operator,
    defaultPipeline: { id: pipeline.id, stages },
  };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `call('POST', '/api/org/agents', org, body)`; pass null as `who` for no credentials. */
export function orgCaller(app: App) {
  return (method: Method, url: string, who: { auth: { authorization: string } } | null, payload?: unknown) =>
    app.inject({ method, url, headers: who ? who.auth : {}, ...(payload !== undefined ? { payload: payload as object } : {}) });
}
