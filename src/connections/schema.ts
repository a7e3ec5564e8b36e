import { Type, type Static } from '@sinclair/typebox';
import { named } from '../http/schema-name.js';
import { StringEnum } from '../tools/schema.js';

/** Wire shapes of OAuth connections: never a token, only what a person needs to see and act on. */

export const CONNECTION_STATUSES = ['not_connected', 'connected', 'needs_reconnect'] as const;

const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ConnectionStatus = named('OAuthConnection', Type.Object({
  status: StringEnum(CONNECTION_STATUSES, { description: '`connected`; `needs_reconnect` when the provider refused a refresh (calls answer TOOL_CONNECTION_EXPIRED until a person reconnects); `not_connected`.' }),
  accountLabel: Type.Union([Type.String(), Type.Null()], { description: 'The connected account as the provider names it (email or user name, from its ID token), when it says.' }),
  scopes: Type.Array(Type.String(), { description: 'The scopes the provider granted: possibly fewer than the tool asked for.' }),
  connectedAt: Time,
  refreshedAt: { ...Time, description: 'When the access token was last renewed; null before the first renewal.' },
  expiresAt: { ...Time, description: 'When the current access token expires, if the provider said; it is renewed before then.' },
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it needs reconnecting.' }),
}, { description: 'An oauth2 installation\'s connection to the provider account it acts on.' }));
export type ConnectionStatus = Static<typeof ConnectionStatus>;

export const ConnectionStart = named('OAuthConnectionStart', Type.Object({
  authorizationUrl: Type.String({ description: 'Send the person\'s browser here: the provider\'s sign-in and consent page. It comes back to `/oauth/callback` and then to the console.' }),
  expiresAt: Type.String({ format: 'date-time', description: 'The authorization must be finished by then (ten minutes), in the same browser session.' }),
}));

export const Disconnected = named('OAuthDisconnected', Type.Object({
  disconnected: Type.Boolean({ description: 'False when nothing was connected.' }),
  revoked: Type.Boolean({ description: 'Whether the provider confirmed the revocation (RFC 7009); the tokens are wiped here either way.' }),
}));

export const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 512 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 1024 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  scope: Type.Optional(Type.String({ maxLength: 4096 })),
}, { additionalProperties: true });
