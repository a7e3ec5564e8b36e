import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.js';
import { invalidClient } from '../http/auth-errors.js';
import { AppError } from '../http/errors.js';
import type { RouteErrorConfig } from '../http/error-handler.js';
import { addFormBodyParser } from '../http/form-body.js';
import { OAuthError, RevokeRequest, ServerMetadata, TokenRequest, TokenResponse } from './schema.js';
import type { TokenResponse as TokenAnswer } from './schema.js';
import { SCOPES } from './scopes.js';
import type { ClientCredentials, OAuthService } from './service.js';

const FORM = 'application/x-www-form-urlencoded';
const oauthConfig: RouteErrorConfig = { errorFormat: 'oauth' };
/**
 * How the token and revocation endpoints authenticate a client, as the document states it: HTTP Basic
 * (client_secret_basic), or nothing in headers: client_id and client_secret in the form body
 * (client_secret_post), or only client_id for a public client (an MCP host, `none`).
 */
const CLIENT_AUTHENTICATION: Record<string, string[]>[] = [{ clientSecretBasic: [] }, {}];

/** The parameters of both endpoints: the only names an error message may repeat back. */
const KNOWN_PARAMETERS = new Set(['grant_type', 'scope', 'client_id', 'client_secret', 'token', 'token_type_hint']);

/** RFC 6749 §3.2: parameters sent more than once are an invalid_request. */
function parseForm(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of pairs) {
    if (key in out) {
      // A name we do not know is client text (a mis-encoded secret, say) and is not quoted.
      throw new AppError('INVALID_REQUEST', KNOWN_PARAMETERS.has(key) ? `The ${key} parameter was sent more than once.` : 'A parameter was sent more than once.');
    }
    out[key] = value;
  }
  return out;
}

/** HTTP Basic per RFC 6749 §2.3.1: id and secret are form-urlencoded before base64. */
function basicCredentials(request: FastifyRequest): { clientId: string; clientSecret: string } | undefined {
  const header = request.headers.authorization;
  if (!header || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('The Basic credentials are malformed.', {});
  const unescape = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return part;
    }
  };
  return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
}

function clientCredentials(request: FastifyRequest, body: { client_id?: string; client_secret?: string }): ClientCredentials {
  const basic = basicCredentials(request);
  if (basic) {
    if (body.client_secret !== undefined) {
      throw new AppError('INVALID_REQUEST', 'Authenticate the client one way: HTTP Basic or client_id/client_secret in the body, not both.');
    }
    if (body.client_id !== undefined && body.client_id !== basic.clientId) {
      throw new AppError('INVALID_REQUEST', 'The client_id in the body does not match the Basic credentials.');
    }
    return { ...basic, method: 'client_secret_basic' };
  }
  if (body.client_id === undefined || body.client_secret === undefined) {
    throw new AppError('INVALID_CLIENT', 'Client authentication is missing: send client_id and client_secret, or HTTP Basic credentials.');
  }
  return { clientId: body.client_id, clientSecret: body.client_secret, method: 'client_secret_post' };
}

/**
 * The grants of MCP hosts (public clients: a `client_id`, no secret) on the same token and revocation endpoints,
 * handled by mcp-auth/ and passed in by the composition root.
 */
export interface PublicClientGrants {
  exchangeCode(body: Record<string, string | undefined>): Promise<TokenAnswer>;
  refresh(body: Record<string, string | undefined>): Promise<TokenAnswer>;
  /** Whether a token is one of theirs (by its prefix), so revocation needs no client secret. */
  owns(token: string): boolean;
  revoke(token: string, clientId: string | undefined): Promise<void>;
  /** The scopes an MCP token may carry. */
  scopes: readonly string[];
}

export function registerOAuthRoutes(app: App, deps: { oauth: OAuthService; config: { publicUrl: string }; publicGrants: PublicClientGrants }): void {
  const { oauth, config, publicGrants } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Only the OAuth endpoints read form bodies (RFC 6749 §4.4.2).
    scope.removeAllContentTypeParsers();
    addFormBodyParser(scope, 8 * 1024, parseForm);
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      reply.header('Pragma', 'no-cache');
    });

    scope.post(
      '/api/dev/oauth/token',
      {
        config: oauthConfig,
        schema: {
          tags: ['OAuth'],
          security: CLIENT_AUTHENTICATION,
          operationId: 'issueToken',
          summary: 'Obtain an access token (client credentials)',
          description:
            'Exchange the client_id and client_secret of an app registered in the developer portal for a bearer token valid one hour, ' +
            'for the Developer API. Form-encoded body; authenticate with HTTP Basic or with client_id and client_secret in the body, not both. ' +
            'Errors follow RFC 6749 §5.2: 401 invalid_client for unknown or wrong credentials; 400 unsupported_grant_type for any grant but ' +
            'client_credentials, invalid_scope for a scope the app may not have, invalid_request for anything else malformed.',
          consumes: [FORM],
          body: TokenRequest,
          response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError },
        },
      },
      async (request) => {
        const body = request.body;
        if (body.grant_type === 'authorization_code') return publicGrants.exchangeCode(body as Record<string, string | undefined>);
        if (body.grant_type === 'refresh_token') return publicGrants.refresh(body as Record<string, string | undefined>);
        if (body.grant_type !== 'client_credentials') {
          throw new AppError('UNSUPPORTED_GRANT_TYPE', 'grant_type must be client_credentials, authorization_code or refresh_token.');
        }
        return oauth.issueToken(clientCredentials(request, body), body.scope);
      },
    );

    scope.post(
      '/api/dev/oauth/revoke',
      {
        config: oauthConfig,
        schema: {
          tags: ['OAuth'],
          security: CLIENT_AUTHENTICATION,
          operationId: 'revokeToken',
          summary: 'Revoke an access token (RFC 7009)',
          description:
            'Revokes an access token of the calling app, which authenticates as on the token endpoint. Form-encoded body. ' +
            'Answers 200 whether or not the token was valid, so tokens cannot be probed; 401 invalid_client when the client credentials are wrong.',
          consumes: [FORM],
          body: RevokeRequest,
          response: { 200: { type: 'null', description: 'Revoked, or already invalid.' }, 400: OAuthError, 401: OAuthError },
        },
      },
      async (request, reply) => {
        // An MCP host's token: a public client, no secret to check (RFC 7009 §5 leaves public clients to the server).
        if (publicGrants.owns(request.body.token)) await publicGrants.revoke(request.body.token, request.body.client_id);
        else await oauth.revokeToken(clientCredentials(request, request.body), request.body.token);
        return reply.code(200).send();
      },
    );
  });

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['OAuth'],
        security: [],
        operationId: 'getAuthorizationServerMetadata',
        summary: 'Authorization server metadata (RFC 8414)',
        description: 'The token and revocation endpoints, and the grant, client authentication methods and scopes they support, for OAuth client libraries. Public: no authentication.',
        response: { 200: ServerMetadata },
      },
    },
    async () => ({
      issuer: config.publicUrl,
      // The authorization code flow is for MCP hosts (docs/mcp.md); developer apps keep client_credentials.
      authorization_endpoint: `${config.publicUrl}/oauth/authorize`,
      token_endpoint: `${config.publicUrl}/api/dev/oauth/token`,
      revocation_endpoint: `${config.publicUrl}/api/dev/oauth/revoke`,
      registration_endpoint: `${config.publicUrl}/oauth/register`,
      grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      // `none`: MCP hosts are public clients (PKCE binds their codes).
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...SCOPES, ...publicGrants.scopes],
      service_documentation: `${config.publicUrl}/docs`,
    }),
  );
}
