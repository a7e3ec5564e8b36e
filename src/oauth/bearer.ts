import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { insufficientScope, invalidToken, missingCredentials } from '../http/auth-errors.js';
import { createRequestSlot } from '../http/request-slot.js';
import type { DeveloperPrincipal, OAuthService } from './service.js';
import { isScope, type Scope } from './scopes.js';

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

/** What `requireDeclaredScope` reads and writes of a route's options (Fastify's onRoute argument). */
interface DeclaredRoute {
  method: string | string[];
  url: string;
  schema?: { security?: ReadonlyArray<Record<string, readonly string[]>> } | undefined;
  onRequest?: unknown;
}

/**
 * RFC 6750 bearer checks for the Developer API. A route states its scope once, as its OpenAPI
 * security requirement (`schema.security: [{ oauth2: ['tools:read'] }]`), in a scope with
 * `addHook('onRoute', auth.requireDeclaredScope)`; handlers read `auth.principal(request)`.
 * The check runs before body parsing, so an unauthenticated caller learns nothing about validation.
 */
export function createDeveloperAuth(oauth: OAuthService) {
  const slot = createRequestSlot<DeveloperPrincipal>('developer principal');

  function requireScope(scope: Scope): onRequestAsyncHookHandler {
    return async (request) => {
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
      slot.set(request, check.principal);
    };
  }

  /**
   * An onRoute hook: the route's declared scope becomes its first onRequest check, so the OpenAPI
   * document and the check cannot drift apart. A route that does not declare exactly one known
   * scope fails at startup instead of going unprotected.
   */
  function requireDeclaredScope(route: DeclaredRoute): void {
    const scopes = route.schema?.security?.flatMap((requirement) => requirement.oauth2 ?? []) ?? [];
    const scope = scopes[0];
    if (scopes.length !== 1 || scope === undefined || !isScope(scope)) {
      throw new Error(`${String(route.method)} ${route.url}: state the route's one OAuth scope as schema.security: [{ oauth2: [scope] }]`);
    }
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [requireScope(scope), ...hooks];
  }

  return { requireScope, requireDeclaredScope, principal: slot.get };
}

export type DeveloperAuth = ReturnType<typeof createDeveloperAuth>;
