import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import type { DeveloperLimit } from '../http/tenant-limits.js';
import { SCOPES } from '../oauth/scopes.js';
import { APP_NAME_MAX_LENGTH, MAX_SECRET_GRACE_SECONDS } from './app-rules.js';
import { appNotFound } from './errors.js';

/** Wire shapes of the portal's apps (`/api/dev/apps`, issue 20). The rules themselves are in app-rules.ts. */

const Scope = Type.Unsafe<(typeof SCOPES)[number]>({ type: 'string', enum: [...SCOPES] });
const Time = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const AppName = Type.String({ minLength: 1, maxLength: APP_NAME_MAX_LENGTH, description: `1–${APP_NAME_MAX_LENGTH} characters (spaces at either end are dropped).`, examples: ['Quote bot'] });
const AppScopes = Type.Array(Scope, {
  minItems: 1,
  maxItems: SCOPES.length,
  uniqueItems: true,
  description: `The scopes the app may be granted at the token endpoint: one or more of ${SCOPES.join(', ')}.`,
});

const appFields = {
  id: Type.String({ description: 'The app id (`app_…`), also its OAuth `client_id`.' }),
  clientId: Type.String({ description: 'The OAuth `client_id` for the token endpoint: the same as `id`.' }),
  name: Type.String(),
  scopes: Type.Array(Scope),
  createdAt: Type.String(),
  lastTokenAt: Time('When the token endpoint last issued the app a token, to the minute (written at most once a minute); null if never.'),
  secretRotatedAt: Time('When the secret was last rotated; null if never.'),
  previousSecretExpiresAt: Time('After a rotation with grace: until when (exclusive) the previous secret still gets tokens; null when it no longer does.'),
};

/** An app as listed and read: never a secret or its hash. */
export const AppRecord = named('App', Type.Object(appFields));

/** An app with its new client secret: answered once, at registration and at rotation. */
export const AppCredentials = named('AppCredentials', Type.Object({
  ...appFields,
  clientSecret: Type.String({ description: 'The client secret (`svc_cs_…`). Shown only now: store it; only its hash is kept.' }),
}));

export const AppCreateBody = named('AppCreate', Type.Object({ name: AppName, scopes: AppScopes }, { additionalProperties: false }));
export type AppCreateBody = Static<typeof AppCreateBody>;

/** Any non-empty subset; narrowing `scopes` revokes the tokens holding a scope the app loses. */
export const AppUpdateBody = named('AppUpdate', ChangesBody({ name: AppName, scopes: AppScopes }));
export type AppUpdateBody = Static<typeof AppUpdateBody>;

export const SecretRotationBody = named('AppSecretRotation', Type.Object(
  {
    previousSecretExpiresIn: Type.Optional(Type.Integer({
      minimum: 0,
      maximum: MAX_SECRET_GRACE_SECONDS,
      description: `Seconds the old secret keeps working (at most ${MAX_SECRET_GRACE_SECONDS}: 24 hours). 0 or absent: it stops at once, and the app's access tokens are revoked.`,
    })),
  },
  { additionalProperties: false },
));

export const DeletedApp = named('Deleted', Type.Object({ id: Type.String(), deleted: Type.Literal(true) }));

export const AppIdParams = Type.Object({ app_id: IdParam('app', appNotFound, 'App id (`app_…`), the same as its client_id.') });

export const AppListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

// ── Limits (GET /api/dev/limits) ──

const usage = (counted: string) => Type.Object({ limit: Type.Integer({ minimum: 0 }), used: Type.Integer({ minimum: 0, description: counted }) });

export const DeveloperLimits = named('DeveloperLimits', Type.Object({
  apps: usage('Your apps.'),
  tools: usage('Your tools, drafts and published ones.'),
} satisfies Record<DeveloperLimit, TSchema>, { description: 'Each limit of your developer account (`limit`: the most you may have, the default or what your Switchboard operator set with `switchboard developer limits`; a create past it is 409 LIMIT_REACHED) and how much of it is used (`used`).' }));
