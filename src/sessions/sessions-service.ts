import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRole } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret, safeEqual } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import type { DeveloperSessionResolver } from '../oauth/bearer.js';
import type { OrgPrincipal, OrgSessionResolver } from '../orgs/auth.js';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { SessionsRepo } from './repo.js';

/**
 * Console sessions: a random token (`svc_ses_…`) in the `svc_session` cookie (HttpOnly,
 * SameSite=Lax, Path=/, Secure in production), stored as its SHA-256. A session ends when it is
 * revoked (sign-out, password change, removal), after `idleMs` unused, or `absoluteMs` after
 * sign-in. `last_seen_at` is written at most once a minute.
 *
 * CSRF: a change (any method but GET, HEAD, OPTIONS) made with the cookie must carry the
 * session's token in `X-CSRF-Token` and, when the browser sends `Origin`, a same-site one:
 * PUBLIC_URL's origin, or in development the request's own.
 */
export const SESSION_COOKIE = 'svc_session';
export const CSRF_HEADER = 'x-csrf-token';
/** Idle expiry is checked to the minute: writing `last_seen_at` on every request would make every read a write. */
const TOUCH_INTERVAL_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const NO_ORGANIZATION =
  'This account belongs to no organization, so the Operator API (/api/org/*) is not for it. It is a developer account: use the Developer API (/api/dev/*) and the console\'s Developer page.';

export interface Session {
  id: string;
  userId: string;
  /** Null for a person without an organization (a developer only): `/api/org/*` refuses them 403. */
  orgId: string | null;
  role: UserRole | null;
  email: string;
  name: string;
  /** The person's developer account (its display name), or null. */
  developer: { id: string; name: string } | null;
  csrfToken: string;
}

export interface IssuedSession {
  token: string;
  csrfToken: string;
  /** The absolute expiry (ISO time). */
  expiresAt: string;
}

/** How long a session lasts (config.ts reads them). */
export interface SessionLimits {
  /** A session unused this long ends (SESSION_IDLE_DAYS, default 7). */
  idleMs: number;
  /** A session ends this long after sign-in, used or not (SESSION_MAX_DAYS, default 30). */
  absoluteMs: number;
}

export function createSessionsService(deps: { repo: SessionsRepo; clock: Clock; limits: SessionLimits; production: boolean; publicUrl: string }) {
  const { repo, clock, limits, production } = deps;
  const publicOrigin = new URL(deps.publicUrl).origin;
  const SESSION_TOKEN = /^svc_ses_[0-9A-Za-z]{40}$/;

  async function issue(user: { id: string; org_id: string | null }): Promise<IssuedSession> {
    const token = newSecret('svc_ses');
    const now = clock.now();
    // Prefixed like every token we issue, so log redaction and leak scans know it.
    const csrfToken = newSecret('svc_csrf');
    const expiresAt = new Date(now.getTime() + limits.absoluteMs).toISOString();
    await repo.insertSession({
      id: newId('ses'),
      token_hash: hashSecret(token),
      user_id: user.id,
      org_id: user.org_id,
      csrf_secret: csrfToken,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: expiresAt,
      revoked_at: null,
    });
    return { token, csrfToken, expiresAt };
  }

  /** The live session the request's cookie names, or undefined (no cookie, unknown, revoked or expired). */
  async function fromRequest(request: FastifyRequest): Promise<Session | undefined> {
    const header = request.headers.cookie;
    const token = header ? request.server.parseCookie(header)[SESSION_COOKIE] : undefined;
    if (token === undefined || !SESSION_TOKEN.test(token)) return undefined;
    const row = await repo.findSessionByHash(hashSecret(token));
    if (!row || row.revoked_at !== null) return undefined;
    const now = clock.now().getTime();
    const lastSeen = Date.parse(row.last_seen_at);
    if (now >= Date.parse(row.expires_at) || now - lastSeen >= limits.idleMs) return undefined;
    if (now - lastSeen >= TOUCH_INTERVAL_MS) await repo.touchSession(row.id, new Date(now).toISOString());
    const developer = row.developer_id === null || row.developer_name === null ? null : { id: row.developer_id, name: row.developer_name };
    return { id: row.id, userId: row.user_id, orgId: row.org_id, role: row.role, email: row.email, name: row.name, developer, csrfToken: row.csrf_secret };
  }

  /** The origins a same-site request may come from: PUBLIC_URL's, and in development the request's own host. */
  function sameSite(request: FastifyRequest): boolean {
    if (request.headers['sec-fetch-site'] === 'cross-site') return false;
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    if (origin === publicOrigin) return true;
    return !production && origin === `${request.protocol}://${request.host}`;
  }

  /** Sign-up, sign-in, password reset and invitation acceptance: no session yet, so the Origin alone guards them. */
  function checkOrigin(request: FastifyRequest): void {
    if (!sameSite(request)) throw new AppError('FORBIDDEN', 'Requests from another site are refused. Use the console at its own address.');
  }

  /** A change made with the session cookie: the session's CSRF token and a same-site Origin, or 403. */
  function checkCsrf(request: FastifyRequest, session: Session): void {
    if (SAFE_METHODS.has(request.method)) return;
    checkOrigin(request);
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !safeEqual(sent, session.csrfToken)) {
      throw new AppError('FORBIDDEN', 'This change needs the X-CSRF-Token header with your session\'s token (GET /api/auth/session gives it). Reload the page and try again.');
    }
  }

  /**
   * The session cookie, written with @fastify/cookie's serializer (http/plugins.ts registers it without
   * hooks, so only these routes pay for cookies): the one Set-Cookie header of the answer.
   */
  function setCookie(reply: FastifyReply, issued: IssuedSession): void {
    const maxAge = Math.max(0, Math.floor((Date.parse(issued.expiresAt) - clock.now().getTime()) / 1000));
    reply.header('Set-Cookie', reply.server.serializeCookie(SESSION_COOKIE, issued.token, { path: '/', httpOnly: true, sameSite: 'lax', maxAge, secure: production }));
  }

  /** Expired at once, as reply.clearCookie would write it. */
  function clearCookie(reply: FastifyReply): void {
    reply.header('Set-Cookie', reply.server.serializeCookie(SESSION_COOKIE, '', { path: '/', httpOnly: true, sameSite: 'lax', secure: production, expires: new Date(0), maxAge: 0 }));
  }

  /**
   * For `/api/org/*` (orgs/auth.ts): a cookie session as an org principal, its changes CSRF-checked.
   * A person without an organization is refused 403 (never a principal without an org).
   */
  const resolver: OrgSessionResolver = {
    async resolve(request): Promise<OrgPrincipal | undefined> {
      const session = await fromRequest(request);
      if (!session) return undefined;
      checkCsrf(request, session);
      if (session.orgId === null) throw new AppError('FORBIDDEN', NO_ORGANIZATION);
      return { orgId: session.orgId, actor: { type: 'user', id: session.userId, label: session.email }, role: session.role ?? 'member' };
    },
  };

  /** For the Developer API (oauth/bearer.ts): the signed-in person and their developer account, changes CSRF-checked. */
  const developerResolver: DeveloperSessionResolver = {
    async resolve(request) {
      const session = await fromRequest(request);
      if (!session) return undefined;
      checkCsrf(request, session);
      return { userId: session.userId, email: session.email, developerId: session.developer?.id ?? null };
    },
  };

  return {
    issue,
    fromRequest,
    checkOrigin,
    checkCsrf,
    setCookie,
    clearCookie,
    resolver,
    developerResolver,
    revoke: (sessionId: string) => repo.revokeSession(sessionId, clock.now().toISOString()),
    revokeAllOf: (userId: string, keep?: string) => repo.revokeUserSessions(userId, clock.now().toISOString(), keep),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

/** Sessions past their absolute expiry: purged in the background (db/expiry-purger.ts). */
export function expiredSessions(repo: SessionsRepo): ExpiryPurge[] {
  return [
    { name: 'sessions', purgeBatch: (now, limit) => repo.deleteExpiredSessions(now.toISOString(), limit) },
  ];
}
