import { Type, type Static } from '@sinclair/typebox';
import { named } from '../http/schema-name.js';
import { SCOPES } from './scopes.js';

/** RFC 6749 §4.4.2. Unknown parameters are ignored, as the RFC requires. */
export const TokenRequest = named('TokenRequest', Type.Object(
  {
    grant_type: Type.String({ description: '`client_credentials` (developer apps), or `authorization_code` and `refresh_token` (MCP hosts, public clients: see docs/mcp.md).' }),
    client_id: Type.Optional(Type.String({ maxLength: 2048 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
    scope: Type.Optional(Type.String({ maxLength: 500, description: `Space-separated, from: ${SCOPES.join(' ')}. Omit for every scope the app is allowed.` })),
    code: Type.Optional(Type.String({ maxLength: 200 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    code_verifier: Type.Optional(Type.String({ maxLength: 128 })),
    refresh_token: Type.Optional(Type.String({ maxLength: 200 })),
    resource: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
));

export const TokenResponse = named('TokenResponse', Type.Object({
  access_token: Type.String({ description: 'Opaque bearer token (`svc_at_…`; `svc_mat_…` for an MCP host).' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds: 3600.' }),
  refresh_token: Type.Optional(Type.String({ description: 'MCP hosts only (`svc_mrt_…`): single-use, a new one comes with each refresh.' })),
  scope: Type.String({ description: 'Granted scopes, space-separated.' }),
}));
export type TokenResponse = Static<typeof TokenResponse>;

/** RFC 6749 §5.2: the error shape of the OAuth endpoints. */
export const OAuthError = named('OAuthError', Type.Object({
  error: Type.Unsafe<string>({
    type: 'string',
    enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'],
  }),
  error_description: Type.String({ description: 'A human-readable message.' }),
}));

/** RFC 7009 §2.1. */
export const RevokeRequest = named('RevokeRequest', Type.Object(
  {
    token: Type.String({ maxLength: 500 }),
    token_type_hint: Type.Optional(Type.String({ maxLength: 50 })),
    client_id: Type.Optional(Type.String({ maxLength: 2048 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
));

/** RFC 8414 §2. */
export const ServerMetadata = named('AuthorizationServerMetadata', Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  registration_endpoint: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  client_id_metadata_document_supported: Type.Boolean(),
  authorization_response_iss_parameter_supported: Type.Boolean(),
  response_types_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  service_documentation: Type.String(),
}));
