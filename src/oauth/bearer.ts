import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { insufficientScope, invalidToken, missingCredentials } from '../http/auth-errors.js';
import { AppError } from '../http/errors.js';
import { createRequestSlot } from '../http/request-slot.js';
import type { OAuthService } from './service.js';
import { SCOPES, isScope, type Scope } from './scopes.js';
import { requestAuditContext, type AuditActor, type AuditContext } from '../audit/context.js';

/** The token in `Authorization: Bearer <token>`, or undefined (RFC 6750 §2.1). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return match?.[1];
}

const REASONS = {
  unknown: 'The access token is not valid.',
  expired: 'The access token has expired. Request a new one from /api/dev/oauth/token.',
  revoked: 'The access token was revoked. Request a new one from /api/dev/oauth/token.',
} as const;

/**
 * Who calls the Developer API: a developer, through an app's access token (`appId` set, its scopes) or
 * through a console session (`appId` null, every scope: the person acts for themselves).
 */
export interface DeveloperPrincipal {
  developerId: string;
  appId: string | null;
  scopes: Scope[];
  via: 'token' | 'session';
  /** As the audit log names them: the signed-in person (their email), or the app whose token it is. */
  actor: AuditActor;
}

/**
 * The seam for console sessions (sessions/sessions-service.ts, wired in services.ts): the signed-in
 * person of the request's `svc_session` cookie, with their developer account's id or null. A change
 * is CSRF-checked by `resolve` itself (403 FORBIDDEN without X-CSRF-Token or from another site).
 * Undefined when there is no live session.
 */
export interface DeveloperSessionResolver {
  resolve(request: FastifyRequest): Promise<{ userId: string; email: string; developerId: string | null } | undefined>;
}

/** What `requireDeclaredScope` reads and writes of a route's options (Fastify's onRoute argument). */
interface DeclaredRoute {
  method: string | string[];
  url: string;
  schema?: { security?: ReadonlyArray<Record<string, readonly string[]>> } | undefined;
  onRequest?: unknown;
}

export const NOT_A_DEVELOPER =
  'This account is not a developer account. Become a developer in the console (Developer), or with POST /api/auth/developer and your session, then try again.';
export const APPS_NEED_A_SESSION =
  'Apps are managed from a signed-in session (the console, or the svc_session cookie with X-CSRF-Token), not with an access token or API key: an app\'s token cannot make apps.';

/**
 * The Developer API's authentication. Tools routes (`/api/dev/tools…`) take either credential:
 *   1. `Authorization: Bearer <access token>` (RFC 6750), its scopes checked — tried first, and alone
 *      whenever an Authorization header is sent: a bad token is never rescued by a cookie;
 *   2. the console's session cookie, for a person with a developer account: every scope, and changes
 *      need X-CSRF-Token and a same-site Origin, exactly as on the Operator API. A person without a
 *      developer account gets 403 FORBIDDEN (NOT_A_DEVELOPER).
 * A route states its scope once, as its OpenAPI security requirement (`schema.security: [{ oauth2:
 * ['tools:read'] }]`), in a scope with `addHook('onRoute', auth.requireDeclaredScope)`, which also adds
 * the `consoleSession` alternative to the document when sessions are wired.
 *
 * Session-only routes (the apps, `/api/dev/apps…`) use `requireDeveloperSession` instead: a bearer
 * credential there is refused 403 FORBIDDEN (APPS_NEED_A_SESSION). Either way handlers read
 * `auth.principal(request)`. The checks run before body parsing, so an unauthenticated caller learns
 * nothing about validation.
 */
export function createDeveloperAuth(oauth: Pick<OAuthService, 'checkAccessToken'>, sessions?: DeveloperSessionResolver) {
  const slot = createRequestSlot<DeveloperPrincipal>('developer principal');

  async function fromToken(request: FastifyRequest, scope: Scope): Promise<DeveloperPrincipal> {
    const token = bearerToken(request);
    if (token === undefined) {
      throw missingCredentials('This endpoint needs an access token: send Authorization: Bearer <token>.');
    }
    const check = await oauth.checkAccessToken(token);
    if (!check.ok) {
      // The reasons are ours and plain ASCII, so they go into the challenge too (RFC 6750 §3).
      throw invalidToken(REASONS[check.reason], { describe: true });
    }
    if (!check.principal.scopes.includes(scope)) {
      throw insufficientScope(`This endpoint needs the ${scope} scope; the token has: ${check.principal.scopes.join(' ') || 'none'}.`, scope);
    }
    return { ...check.principal, via: 'token', actor: { type: 'api_key', id: check.principal.appId, label: 'OAuth access token' } };
  }

  /** The developer of the request's session (CSRF checked on changes), 403 for a person who is not one; undefined without a session. */
  async function fromSession(request: FastifyRequest): Promise<DeveloperPrincipal | undefined> {
    const session = sessions ? await sessions.resolve(request) : undefined;
    if (!session) return undefined;
    if (session.developerId === null) throw new AppError('FORBIDDEN', NOT_A_DEVELOPER);
    return { developerId: session.developerId, appId: null, scopes: [...SCOPES], via: 'session', actor: { type: 'user', id: session.userId, label: session.email } };
  }

  function requireScope(scope: Scope): onRequestAsyncHookHandler {
    return async (request) => {
      if (request.headers.authorization === undefined && sessions) {
        const principal = await fromSession(request);
        if (principal) {
          slot.set(request, principal);
          return;
        }
        throw missingCredentials('This endpoint needs an access token (Authorization: Bearer <token>) or a signed-in developer session.');
      }
      slot.set(request, await fromToken(request, scope));
    };
  }

  /**
   * For session-only routes (apps): a signed-in developer, changes CSRF-checked. Any Authorization
   * header → 403 FORBIDDEN; no session → 401 UNAUTHORIZED; a person without a developer account → 403.
   */
  const requireDeveloperSession: onRequestAsyncHookHandler = async (request) => {
    if (request.headers.authorization !== undefined) throw new AppError('FORBIDDEN', APPS_NEED_A_SESSION);
    const principal = await fromSession(request);
    if (!principal) throw new AppError('UNAUTHORIZED', 'You are not signed in, or your session has ended. Sign in to the console as a developer.');
    slot.set(request, principal);
  };

  /**
   * An onRoute hook: the route's declared scope becomes its first onRequest check, so the OpenAPI
   * document and the check cannot drift apart. A route that does not declare exactly one known
   * scope fails at startup instead of going unprotected. With sessions wired, the document also
   * lists the cookie session as the alternative the check accepts.
   */
  function requireDeclaredScope(route: DeclaredRoute): void {
    const security = route.schema?.security ?? [];
    const scopes = security.flatMap((requirement) => requirement.oauth2 ?? []);
    const scope = scopes[0];
    if (scopes.length !== 1 || scope === undefined || !isScope(scope)) {
      throw new Error(`${String(route.method)} ${route.url}: state the route's one OAuth scope as schema.security: [{ oauth2: [scope] }]`);
    }
    if (sessions && route.schema && !security.some((requirement) => 'consoleSession' in requirement)) {
      route.schema.security = [...security, { consoleSession: [] }];
    }
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [requireScope(scope), ...hooks];
  }

  /** Who made the request and from where, for the audit log (audit/context.ts). */
  const auditContext = (request: FastifyRequest): AuditContext => requestAuditContext(request, slot.get(request).actor);

  return { requireScope, requireDeclaredScope, requireDeveloperSession, principal: slot.get, auditContext };
}

export type DeveloperAuth = ReturnType<typeof createDeveloperAuth>;
