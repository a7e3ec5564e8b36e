import { Type, type Static } from '@sinclair/typebox';
import { ListQuery, Page } from '../http/envelope.js';
import { named } from '../http/schema-name.js';
import { ACTOR_TYPES, AUDIT_ACTION_NAMES } from './actions.js';

/** Wire schemas of the audit log (`GET /api/org/audit-log`, `GET /api/dev/audit-log`). */

const StringEnum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

export const AuditEntry = named('AuditEntry', Type.Object({
  id: Type.String({ description: '`aud_…`' }),
  actor: Type.Object({
    type: StringEnum(ACTOR_TYPES),
    id: Type.Union([Type.String(), Type.Null()], { description: '`usr_…`, `key_…`, `akey_…`, `app_…`; null for the CLI.' }),
    label: Type.Union([Type.String(), Type.Null()], { description: 'An email or `svc_org_…abcd`; never a secret.' }),
  }),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  action: StringEnum(AUDIT_ACTION_NAMES),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'Names, roles, versions; never a secret.' }),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type AuditEntry = Static<typeof AuditEntry>;
export const AuditEntryPage = Page(AuditEntry);

export const AuditLogQuery = Type.Object(
  {
    actor: Type.Optional(Type.String({ pattern: '^[a-z_]{2,10}$|^[a-z]{2,5}_[0-9A-Za-z]{20,24}$', description: 'An actor id, or a type (`cli`).' })),
    action: Type.Optional(Type.String({ pattern: '^[a-z_]{2,20}\\.[a-z_]{2,20}$', description: 'An action, e.g. `api_key.created`.' })),
    target: Type.Optional(Type.String({ pattern: '^[a-z]{2,5}_[0-9A-Za-z]{20,24}$', description: 'A target id.' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'At or after this time.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time.' })),
    ...ListQuery,
  },
  { additionalProperties: false },
);
export type AuditLogQuery = Static<typeof AuditLogQuery>;
