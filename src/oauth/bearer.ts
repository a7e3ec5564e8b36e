import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError } from '../http/errors.js';
import { createRequestSlot } from '../http/request-slot.js';
import type { DeveloperPrincipal, OAuthService } from './service.js';
import type { Scope } from './scopes.js';

const REALM = 'realm="switchboard"';

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
 * RFC 6750 bearer checks for the Developer API. Routes declare their scope with
 * `onRequest: auth.requireScope('tools:read')`; handlers read `auth.principal(request)`.
 * Runs before body parsing, so an unauthenticated caller learns nothing about validation.
 */
export function createDeveloperAuth(oauth: OAuthService) {
  const slot = createRequestSlot<DeveloperPrincipal>('developer principal');

  function requireScope(scope: Scope): onRequestAsyncHookHandler {
    return async (request) => {
      const token = bearerToken(request);
      if (token === undefined) {
        throw new AppError('UNAUTHORIZED', 'This endpoint needs an access token: send Authorization: Bearer <token>.', {
          headers: { 'WWW-Authenticate': `Bearer ${REALM}` },
        });
      }
      const check = await oauth.checkAccessToken(token);
      if (!check.ok) {
        throw new AppError('INVALID_TOKEN', REASONS[check.reason], {
          headers: { 'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="${REASONS[check.reason]}"` },
        });
      }
      if (!check.principal.scopes.includes(scope)) {
        throw new AppError('INSUFFICIENT_SCOPE', `This endpoint needs the ${scope} scope; the token has: ${check.principal.scopes.join(' ') || 'none'}.`, {
          headers: { 'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${scope}"` },
        });
      }
      slot.set(request, check.principal);
    };
  }

  return { requireScope, principal: slot.get };
}

export type DeveloperAuth = ReturnType<typeof createDeveloperAuth>;
