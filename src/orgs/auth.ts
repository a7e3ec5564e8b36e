/**
 * Authentication for the Operator API (`/api/org/*`).
 *
 * Contract (other features rely on it):
 *   const orgAuth = createOrgAuth({ repo: repos.orgs, clock });   // in services.ts
 *   route options: `{ onRequest: orgAuth.require, … }`
 *   handler:       `const { orgId, actor } = orgAuth.principal(request);`
 *
 * Accepted credentials, tried in order:
 *   1. `Authorization: Bearer svc_org_…` — an org API key, looked up by its SHA-256 hash.
 *      Revoked and unknown keys → 401 INVALID_TOKEN. Actor `{type: 'api_key', id: 'key_…'}`.
 *   2. A session (cookie) — the `sessions` seam below (sessions/sessions-service.ts): an operator
 *      signed in to the console. Actor `{type: 'user', id: 'usr_…'}` with the user's role; its
 *      changes need the CSRF token and a same-site Origin (403 FORBIDDEN otherwise).
 * Nothing at all → 401 UNAUTHORIZED with `WWW-Authenticate: Bearer realm="switchboard"`.
 *
 * Runs as an onRequest hook, before the body is parsed, so an unauthenticated
 * caller learns nothing about validation or about which ids exist.
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { invalidToken, missingCredentials } from '../http/auth-errors.js';
import { AppError } from '../http/errors.js';
import { createRequestSlot } from '../http/request-slot.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { bearerToken } from '../oauth/bearer.js';
import type { UserRole } from '../db/tables.js';
import { lookupKey, type KeyCache } from './key-cache.js';
import { keyLabel, requestAuditContext, type AuditContext } from '../audit/context.js';
import type { OrgsRepo } from './repo.js';

export interface OrgPrincipal {
  orgId: string;
  /** `label`: the user's email, or the key's `svc_org_…abcd`, as the audit log names them. */
  actor: { type: 'api_key' | 'user'; id: string; label: string };
  /** A signed-in user's role; an API key speaks for the organization and may do what an owner does. */
  role?: UserRole;
}

/**
 * The seam for panel sessions: given a request, the signed-in operator or undefined.
 * It is consulted only when no Authorization header was sent, so a bad key is never
 * rescued by a cookie (and a cookie-bearing browser cannot be confused into key auth).
 */
export interface OrgSessionResolver {
  resolve(request: FastifyRequest): Promise<OrgPrincipal | undefined>;
}

export interface OrgAuthDeps {
  repo: Pick<OrgsRepo, 'findApiKeyByHash' | 'touchApiKey'>;
  clock: Clock;
  /** Valid keys by hash (key-cache.ts): a request with a known key costs no query. */
  keyCache?: KeyCache | undefined;
  sessions?: OrgSessionResolver;
}

export const ORG_KEY_PREFIX = 'svc_org_';
/** `last_used_at` is informational: writing it at most once a minute keeps reads read-only. */
const TOUCH_INTERVAL_MS = 60_000;

/** The message stays out of the header: it may hold non-ASCII characters, which headers cannot. */
const invalidKey = (message: string): AppError => invalidToken(message);

export function createOrgAuth(deps: OrgAuthDeps) {
  const { repo, clock, sessions, keyCache } = deps;
  const slot = createRequestSlot<OrgPrincipal>('org principal');

  async function fromApiKey(token: string): Promise<OrgPrincipal> {
    if (!token.startsWith(ORG_KEY_PREFIX)) {
      throw invalidKey('This is not an organization API key. Operator API keys start with svc_org_.');
    }
    const hash = hashSecret(token);
    // Whether the key is revoked (for the message), when this request's own read saw the row.
    let revoked: boolean | undefined;
    const key = await lookupKey(keyCache, hash, async () => {
      const row = await repo.findApiKeyByHash(hash);
      revoked = row !== undefined && row.revoked_at !== null;
      return row && { id: row.id, orgId: row.org_id, lastFour: row.last_four, lastUsedAt: row.last_used_at, revoked };
    });
    if (!key) {
      // It joined another request's read: read again for the message (refusals only).
      revoked ??= ((await repo.findApiKeyByHash(hash))?.revoked_at ?? null) !== null;
      throw revoked
        ? invalidKey('The API key was revoked. Use another of your organization\'s keys, or create one with POST /api/org/api-keys (or switchboard api-key create on the server).')
        : invalidKey('The API key is not valid.');
    }
    const now = clock.now();
    if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
      // Set first, so the requests arriving meanwhile do not write it too.
      key.lastUsedAt = now.toISOString();
      await repo.touchApiKey(key.id, key.lastUsedAt);
    }
    return { orgId: key.orgId, actor: { type: 'api_key', id: key.id, label: keyLabel(ORG_KEY_PREFIX, key.lastFour) } };
  }

  const require: onRequestAsyncHookHandler = async (request) => {
    if (request.headers.authorization !== undefined) {
      const token = bearerToken(request);
      if (token === undefined) throw invalidKey('Send the API key as Authorization: Bearer svc_org_….');
      slot.set(request, await fromApiKey(token));
      return;
    }
    const session = sessions ? await sessions.resolve(request) : undefined;
    if (session) {
      slot.set(request, session);
      return;
    }
    throw missingCredentials('Sign in to the console, or send an organization API key as Authorization: Bearer svc_org_….');
  };

  /**
   * For routes only owners use (members, invitations, API keys, webhooks), after `require`: a member's
   * session gets 403 FORBIDDEN saying what the route guards (`what`: "manage webhooks"). Route-level
   * onRequest hooks run after the scope's, before the body is read.
   */
  const requireOwner = (what: string): onRequestAsyncHookHandler => {
    const refused = `Only an owner of the organization can ${what}. Ask an owner to do it.`;
    return async (request) => {
      if (slot.get(request).role === 'member') throw new AppError('FORBIDDEN', refused);
    };
  };

  /** Who made the request and from where, for the audit log (audit/context.ts). */
  const auditContext = (request: FastifyRequest): AuditContext => requestAuditContext(request, slot.get(request).actor);

  return { require, requireOwner, principal: (request: FastifyRequest): OrgPrincipal => slot.get(request), auditContext };
}

export type OrgAuth = ReturnType<typeof createOrgAuth>;
