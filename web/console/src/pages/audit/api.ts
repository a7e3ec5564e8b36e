import { api } from '../../api/client';
import type { AuditEntry, Page } from '../../api/types';
import { localMidnight } from '../tools/api';

/** Which log: the organization's (owners, `/api/org/audit-log`) or the signed-in developer's own (`/api/dev/audit-log`). */
export type AuditScope = 'org' | 'dev';

export interface AuditFilters {
  action: string;
  /** An actor id (`usr_…`, `key_…`) or a type (`cli`). */
  actor: string;
  /** A record's id. */
  target: string;
  /** First and last day shown (`YYYY-MM-DD`, both included); empty: no bound. */
  from: string;
  to: string;
}

export const AUDIT_PAGE = 25;
const PATHS: Record<AuditScope, string> = { org: '/api/org/audit-log', dev: '/api/dev/audit-log' };

export const auditKeys = { log: (scope: AuditScope, filters: AuditFilters) => ['audit-log', scope, filters] as const };

/** Empty fields are left out; days become times at the browser's midnight, the `to` day included. */
export const fetchAuditLog = (scope: AuditScope, filters: AuditFilters, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<AuditEntry>>(PATHS[scope], {
    query: {
      action: filters.action || undefined,
      actor: filters.actor.trim() || undefined,
      target: filters.target.trim() || undefined,
      from: localMidnight(filters.from),
      to: localMidnight(filters.to, 1),
      limit: AUDIT_PAGE,
      cursor,
    },
    ...(signal ? { signal } : {}),
  });

/** Each action in words, in the order the filter lists them; `dev` marks those a developer's own log holds. */
export const ACTIONS: Array<{ action: AuditEntry['action']; label: string; dev?: true }> = [
  { action: 'auth.signin', label: 'Signed in', dev: true },
  { action: 'auth.signin_failed', label: 'Sign-in failed', dev: true },
  { action: 'auth.signout_all', label: 'Signed out everywhere', dev: true },
  { action: 'auth.password_changed', label: 'Password changed', dev: true },
  { action: 'auth.password_reset', label: 'Password reset', dev: true },
  { action: 'member.invited', label: 'Member invited' },
  { action: 'member.joined', label: 'Member joined' },
  { action: 'member.removed', label: 'Member removed' },
  { action: 'member.role_changed', label: 'Member role changed' },
  { action: 'api_key.created', label: 'API key created' },
  { action: 'api_key.revoked', label: 'API key revoked' },
  { action: 'agent_key.created', label: 'Agent key created' },
  { action: 'agent_key.revoked', label: 'Agent key revoked' },
  { action: 'installation.credentials_set', label: 'Tool credentials set' },
  { action: 'model_provider.key_set', label: 'Model provider key set' },
  { action: 'webhook.created', label: 'Webhook added' },
  { action: 'webhook.secret_rotated', label: 'Webhook secret rotated' },
  { action: 'webhook.deleted', label: 'Webhook deleted' },
  { action: 'form.consent_changed', label: 'Consent text changed' },
  { action: 'org.settings_changed', label: 'Settings changed' },
  { action: 'org.retention_changed', label: 'Retention changed' },
  { action: 'contact.erased', label: 'Contact erased' },
  { action: 'contact.exported', label: 'Contact exported' },
  { action: 'app.secret_rotated', label: 'App secret rotated', dev: true },
  { action: 'tool.published', label: 'Tool published', dev: true },
  { action: 'tool.withdrawn', label: 'Tool withdrawn', dev: true },
];

export const actionLabel = (action: string): string => ACTIONS.find((each) => each.action === action)?.label ?? action;

const ACTOR_TYPES: Record<string, string> = { user: 'Person', api_key: 'API key', agent_key: 'Agent key', cli: 'Server command line', system: 'Switchboard' };

/** Who, in words: their label (an email, `svc_org_…abcd`), else their kind and id. */
export function actorText(actor: AuditEntry['actor']): string {
  return actor.label ?? (actor.id ? `${ACTOR_TYPES[actor.type] ?? actor.type} ${actor.id}` : (ACTOR_TYPES[actor.type] ?? actor.type));
}

/** The details as short `key: value` text; never a secret (the server keeps none). */
export function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');
}
