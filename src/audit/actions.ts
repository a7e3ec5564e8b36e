/**
 * The closed set of what the audit log records (issue 36, part 4), by dotted name, with the kind of record
 * each one names as its target. A new sensitive action adds its name here first: `record` takes no other.
 */
export const AUDIT_ACTIONS = {
  'auth.signin': 'user',
  'auth.signin_failed': 'user',
  'auth.signout_all': 'user',
  'auth.password_changed': 'user',
  'auth.password_reset': 'user',
  'member.invited': 'invitation',
  'member.joined': 'user',
  'member.removed': 'user',
  'member.role_changed': 'user',
  'api_key.created': 'api_key',
  'api_key.revoked': 'api_key',
  'agent_key.created': 'agent_key',
  'agent_key.revoked': 'agent_key',
  'installation.credentials_set': 'installation',
  'model_provider.key_set': 'model_provider',
  'webhook.created': 'webhook',
  'webhook.secret_rotated': 'webhook',
  'webhook.deleted': 'webhook',
  'form.consent_changed': 'form',
  'org.settings_changed': 'organization',
  'org.retention_changed': 'organization',
  'contact.erased': 'contact',
  'contact.exported': 'contact',
  'app.secret_rotated': 'app',
  'tool.published': 'tool',
  'tool.withdrawn': 'tool',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export type AuditTargetType = (typeof AUDIT_ACTIONS)[AuditAction];
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];

export const ACTOR_TYPES = ['user', 'api_key', 'agent_key', 'cli', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
