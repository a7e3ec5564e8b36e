import type { DB } from './tables.js';

/** The feature folders under src/ that own tables. */
export type TableOwner = 'developers' | 'operators' | 'sessions' | 'oauth' | 'tools' | 'orgs' | 'crm' | 'forms' | 'invocation' | 'models' | 'conversations' | 'webhooks' | 'chat' | 'connections' | 'mcp-auth' | 'notifications' | 'audit';

/**
 * Which feature writes each table. The rule: a feature's code (its repos, and the one-statement
 * SQL it composes) inserts, updates and deletes rows only in the tables it owns; another feature
 * that needs a row written calls the owner's repo (inside a unit of work: the owner's repo from the
 * `Repos` of that transaction, e.g. org sign-up's `repos.operators.insertUser`) or service. Reads
 * may join any table. Keyed by every table of `DB`, so a new table without an owner does not
 * compile; table-owners.test.ts checks every write in src/ against this map, and that the table in
 * docs/ARCHITECTURE.md says the same.
 */
export const TABLE_OWNERS: { readonly [Table in keyof DB]: TableOwner } = {
  developers: 'developers',
  apps: 'developers',
  users: 'operators',
  sessions: 'sessions',
  invitations: 'operators',
  password_resets: 'operators',
  access_tokens: 'oauth',
  tools: 'tools',
  tool_revisions: 'tools',
  orgs: 'orgs',
  org_api_keys: 'orgs',
  agents: 'orgs',
  agent_keys: 'orgs',
  custom_fields: 'crm',
  pipelines: 'crm',
  stages: 'crm',
  contacts: 'crm',
  // The tombstone of an erased contact: written by the contacts repo in the erasure's transaction (privacy/).
  contact_erasures: 'crm',
  notes: 'crm',
  opportunities: 'crm',
  forms: 'forms',
  consent_versions: 'forms',
  submissions: 'forms',
  idempotency_keys: 'forms',
  form_views: 'forms',
  installations: 'invocation',
  installation_agents: 'invocation',
  installation_credentials: 'invocation',
  tool_calls: 'invocation',
  model_providers: 'models',
  conversations: 'conversations',
  conversation_messages: 'conversations',
  conversation_token_usage: 'conversations',
  // Counted in the turn's own transaction, by the conversations repo, for widget conversations.
  widget_token_usage: 'conversations',
  chat_sessions: 'chat',
  webhook_endpoints: 'webhooks',
  webhook_events: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_outbox: 'webhooks',
  oauth_connections: 'connections',
  oauth_states: 'connections',
  mcp_clients: 'mcp-auth',
  mcp_grants: 'mcp-auth',
  mcp_codes: 'mcp-auth',
  mcp_tokens: 'mcp-auth',
  notification_outbox: 'notifications',
  notification_preferences: 'notifications',
  audit_log: 'audit',
};
