/**
 * Row types of every table, as Kysely sees them. Conventions (both dialects):
 * ids are prefixed text, times ISO 8601 UTC text, booleans 0/1, JSON as text.
 */

// ── Developer side ────────────────────────────────────────────────────────────

/** A developer account: a person's (`user_id`, one each); its email and password are the person's (docs/accounts.md). */
export interface DevelopersTable {
  id: string;
  user_id: string;
  /** The display name the catalog shows. */
  name: string;
  created_at: string;
  /** The operator's overrides of the developer's limits, JSON `{"tools": 200}` (http/tenant-limits.ts); null: the defaults. */
  limits: string | null;
}

export interface AppsTable {
  id: string;
  developer_id: string;
  name: string;
  client_secret_hash: string;
  /** Space-separated scopes the app may be granted. */
  scopes: string;
  created_at: string;
  secret_rotated_at: string | null;
  disabled_at: string | null;
  /** The secret before the last rotation, accepted strictly before `previous_secret_expires_at`; null when it stopped at once. */
  previous_secret_hash: string | null;
  previous_secret_expires_at: string | null;
  /** When the token endpoint last issued a token to the app; written at most once a minute (oauth/service.ts). */
  last_token_at: string | null;
}

export interface AccessTokensTable {
  token_hash: string;
  app_id: string;
  developer_id: string;
  scopes: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface ToolsTable {
  id: string;
  developer_id: string;
  name: string;
  description: string;
  endpoint: string;
  method: string;
  auth_type: string;
  api_key_header: string | null;
  category: string;
  /** JSON array of tool parameters. */
  parameters: string;
  status: string;
  version: number;
  published_revision_id: string | null;
  has_unpublished_changes: number;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  /** `authType: oauth2`: the provider's settings as canonical JSON (tools/oauth-settings.ts); null otherwise. */
  oauth: string | null;
  /** The OAuth client secret, sealed (tools/client-secret.ts); the tool's, not a revision's. */
  oauth_client_secret: string | null;
  oauth_secret_key_id: string | null;
}

export interface ToolRevisionsTable {
  id: string;
  tool_id: string;
  version: number;
  name: string;
  description: string;
  endpoint: string;
  method: string;
  auth_type: string;
  api_key_header: string | null;
  category: string;
  parameters: string;
  created_at: string;
  oauth: string | null;
}

// ── Business side ─────────────────────────────────────────────────────────────

export interface OrgsTable {
  id: string;
  name: string;
  /** ISO 3166 alpha-2 country for national phone numbers. */
  default_country: string;
  created_at: string;
  /** The most model tokens its conversations may use per UTC day (conversation_token_usage); null: no limit. */
  daily_token_budget: number | null;
  /** The operator's overrides of the organization's limits, JSON `{"forms": 200}` (http/tenant-limits.ts); null: the defaults. */
  limits: string | null;
  /** Retention (orgs/retention.ts): days to keep submissions' values, conversations, the call log, webhook delivery bodies; null: as long as before. */
  retention_submissions_days: number | null;
  retention_conversations_days: number | null;
  retention_call_log_days: number | null;
  retention_webhook_bodies_days: number | null;
}

/** A person who signs in (docs/accounts.md): an operator of one organization, a developer, or both. */
export interface UsersTable {
  id: string;
  /** Null: a person without an organization (a developer only). */
  org_id: string | null;
  email: string;
  name: string;
  password_hash: string;
  /** `owner` manages members, invitations and API keys; `member` does everything else. Null without an organization. */
  role: UserRole | null;
  created_at: string;
}

export type UserRole = 'owner' | 'member';

/** A console session: the cookie holds the token, this row only its SHA-256. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  /** The person's organization when signed in; null for a person without one. */
  org_id: string | null;
  /** The CSRF token of the session (useless without the cookie, which is stored hashed). */
  csrf_secret: string;
  created_at: string;
  /** Written at most once a minute; idle expiry counts from it. */
  last_seen_at: string;
  /** Absolute expiry. */
  expires_at: string;
  revoked_at: string | null;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  token_hash: string;
  /** The actor who invited: a user id (`usr_…`) or an API key id (`key_…`). */
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface OrgApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  key_hash: string;
  last_four: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AgentsTable {
  id: string;
  org_id: string;
  name: string;
  brand_name: string;
  primary_color: string;
  background_color: string;
  text_color: string;
  font_family: string | null;
  logo_url: string | null;
  created_at: string;
  updated_at: string;
  /** The agent's model (all five null until one is set): a provider of the same org (`mp_…`). */
  model_provider_id: string | null;
  model_name: string | null;
  model_instructions: string | null;
  /** Null: the provider's default. */
  model_temperature: number | null;
  model_max_tool_rounds: number | null;
  /** The chat widget (issue 22): `chat_…`, the agent's public name; made with the agent, never changed. */
  chat_id: string | null;
  /** 0/1; off by default. */
  chat_enabled: number;
  /** JSON array of origins (`https://shop.example`, `https://*.example.com`), lowercase. */
  chat_allowed_origins: string;
  chat_welcome_message: string;
  /** A form of the same organization (`frm_…`): its fields are what lead capture asks for. */
  chat_lead_form_id: string | null;
  /** The most tokens the agent's widget conversations may use per UTC day; null: no limit of its own. */
  chat_daily_token_budget: number | null;
  /** Hand-off (issue 35): 0/1, off by default. */
  handoff_enabled: number;
  /** How long a request for a person waits before the agent takes the chat back (30–3600). */
  handoff_wait_seconds: number;
  /** JSON `{timezone, days, open, close}` (orgs/office-hours.ts); null: always open. */
  handoff_office_hours: string | null;
}

export interface CustomFieldsTable {
  id: string;
  org_id: string;
  key: string;
  entity: string;
  label: string;
  type: string;
  /** JSON array of strings (choices of a select). */
  options: string;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PipelinesTable {
  id: string;
  org_id: string;
  name: string;
  is_default: number;
  created_at: string;
  updated_at: string;
}

export interface StagesTable {
  id: string;
  org_id: string;
  pipeline_id: string;
  name: string;
  position: number;
}

export interface ContactsTable {
  id: string;
  org_id: string;
  /** Trimmed and lowercased. */
  email: string | null;
  /** E.164. */
  phone: string | null;
  name: string | null;
  company: string | null;
  source: string;
  /** JSON object of custom contact fields by key. */
  custom: string;
  created_at: string;
  updated_at: string;
}

/** Every column, for query templates (db/query-template.ts): the type checker keeps the list complete. */
export const CONTACT_COLUMNS: Record<keyof ContactsTable, true> = {
  id: true, org_id: true, email: true, phone: true, name: true, company: true, source: true, custom: true, created_at: true, updated_at: true,
};

export interface NotesTable {
  id: string;
  org_id: string;
  contact_id: string;
  body: string;
  source: string;
  submission_id: string | null;
  created_at: string;
}

export const NOTE_COLUMNS: Record<keyof NotesTable, true> = { id: true, org_id: true, contact_id: true, body: true, source: true, submission_id: true, created_at: true };

export interface OpportunitiesTable {
  id: string;
  org_id: string;
  contact_id: string;
  pipeline_id: string;
  stage_id: string;
  title: string;
  source: string;
  custom: string;
  submission_id: string | null;
  created_at: string;
  updated_at: string;
}

export const OPPORTUNITY_COLUMNS: Record<keyof OpportunitiesTable, true> = {
  id: true, org_id: true, contact_id: true, pipeline_id: true, stage_id: true, title: true, source: true, custom: true, submission_id: true, created_at: true, updated_at: true,
};

export interface FormsTable {
  id: string;
  org_id: string;
  slug: string;
  title: string;
  active: number;
  /** JSON: the spec's five built-in fields, each {enabled, required}. */
  fields: string;
  /** JSON: [{customFieldId, required}] in display order. */
  custom_fields: string;
  consent_text: string;
  consent_version: string;
  success_message: string;
  redirect_url: string | null;
  agent_id: string | null;
  create_opportunity: number;
  pipeline_id: string | null;
  stage_id: string | null;
  created_at: string;
  updated_at: string;
  /** 1: each submission emails its recipients (notifications/). */
  notify_enabled: number;
  /** Who: null for the organization's owners, else a JSON array of its members' user ids. */
  notify_recipients: string | null;
}

export interface ConsentVersionsTable {
  form_id: string;
  version: string;
  text: string;
  created_at: string;
}

export interface SubmissionsTable {
  id: string;
  org_id: string;
  form_id: string;
  contact_id: string;
  opportunity_id: string | null;
  /** JSON of the built-in field values that were stored. */
  field_values: string;
  custom: string;
  consent_version: string;
  /** JSON of the utm_* keys. */
  metadata: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  /** When retention cleared its values, UTM, IP and user agent (the row stays for the form's counts); null: not cleared. */
  values_cleared_at: string | null;
  /** A chat widget lead card's submission: the conversation it came from (privacy/ finds the person's chats by it); null otherwise. */
  conversation_id: string | null;
}

export const SUBMISSION_COLUMNS: Record<keyof SubmissionsTable, true> = {
  id: true, org_id: true, form_id: true, contact_id: true, opportunity_id: true, field_values: true, custom: true, consent_version: true, metadata: true, ip: true,
  user_agent: true, created_at: true, values_cleared_at: true, conversation_id: true,
};

/**
 * The tombstone of an erased contact (privacy/): the contact's row stays as an empty stub for its opportunities and
 * anonymized submissions; this row marks it erased. Hashes: HMAC-SHA256 (privacy/tombstone.ts), never the values.
 */
export interface ContactErasuresTable {
  contact_id: string;
  org_id: string;
  email_hash: string | null;
  phone_hash: string | null;
  erased_at: string;
}

export interface IdempotencyKeysTable {
  form_id: string;
  key: string;
  /** JSON of the first response. */
  response: string;
  created_at: string;
}

// ── Tool calls ────────────────────────────────────────────────────────────────

export interface InstallationsTable {
  id: string;
  org_id: string;
  tool_id: string;
  /** The name agents call the tool by instead of the tool's own; null for the tool's name. */
  alias: string | null;
  /** 1: every agent of the org; 0: the agents in installation_agents. */
  all_agents: number;
  created_at: string;
  updated_at: string;
}

export interface InstallationAgentsTable {
  installation_id: string;
  agent_id: string;
  org_id: string;
}

export interface InstallationCredentialsTable {
  installation_id: string;
  /** apiKey, token, username, password or secret. */
  field: string;
  /** lib/secrets.ts sealed value (AES-256-GCM, AAD `<installation id>:<field>`). */
  sealed: string;
  key_id: string;
}

/** An OAuth connection (connections/): an installation's, or a developer's test account for a tool. */
export interface OAuthConnectionsTable {
  id: string;
  tool_id: string;
  org_id: string | null;
  installation_id: string | null;
  developer_id: string | null;
  /** connected | needs_reconnect */
  status: string;
  /** The client the tokens were issued to: a refresh uses the same. */
  client_id: string;
  /** Sealed (AES-256-GCM, AAD `<connection id>:access_token`). */
  access_token: string;
  refresh_token: string | null;
  key_id: string;
  token_version: number;
  expires_at: string | null;
  /** Space-separated, as granted. */
  scopes: string;
  account_label: string | null;
  connected_at: string;
  refreshed_at: string | null;
  refresh_failures: number;
  retry_refresh_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  /** Why it needs reconnecting, in our words. */
  failure_reason: string | null;
}

/** An authorization in progress, by the SHA-256 of its `state`. */
export interface OAuthStatesTable {
  state_hash: string;
  tool_id: string;
  org_id: string | null;
  installation_id: string | null;
  developer_id: string | null;
  session_id: string;
  client_id: string;
  /** The PKCE verifier, sealed (AAD `oauth_state:<state hash>`). */
  code_verifier: string;
  key_id: string;
  scopes: string;
  expires_at: string;
  created_at: string;
}

/** A client registered by Dynamic Client Registration (mcp-auth/). */
export interface McpClientsTable {
  id: string;
  client_name: string;
  /** JSON array of redirect URIs. */
  redirect_uris: string;
  created_at: string;
  /** When a grant was first made for it; never-used registrations are purged. */
  used_at: string | null;
}

/** A person's approval of one MCP client for one agent. */
export interface McpGrantsTable {
  id: string;
  org_id: string;
  agent_id: string;
  client_id: string;
  client_name: string;
  user_id: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface McpCodesTable {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
  used_at: string | null;
}

export interface McpTokensTable {
  token_hash: string;
  grant_id: string;
  /** access | refresh */
  kind: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface ToolCallsTable {
  id: string;
  org_id: string;
  agent_id: string;
  tool_id: string;
  revision_id: string;
  installation_id: string;
  /** operator, mcp or test. */
  path: string;
  /** OK or the error code. */
  outcome: string;
  http_status: number | null;
  duration_ms: number;
  request_bytes: number;
  response_bytes: number;
  created_at: string;
  /** The conversation whose model asked for the call; null on every other path. */
  conversation_id: string | null;
}

/** Every column of a call-log row: the call log's insert templates read these (invocation/repo.ts). */
export const TOOL_CALL_COLUMNS: Record<keyof ToolCallsTable, true> = {
  id: true, org_id: true, agent_id: true, tool_id: true, revision_id: true, installation_id: true, path: true,
  outcome: true, http_status: true, duration_ms: true, request_bytes: true, response_bytes: true, created_at: true,
  conversation_id: true,
};

export interface AgentKeysTable {
  id: string;
  agent_id: string;
  org_id: string;
  name: string;
  key_hash: string;
  last_four: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface FormViewsTable {
  form_id: string;
  org_id: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  views: number;
}

// ── Conversations ───────────────────────────────────────────────────────────────

export interface ConversationsTable {
  id: string;
  org_id: string;
  agent_id: string;
  /** `api` (an org API key), `console` (a signed-in operator) or `widget` (a visitor). */
  source: string;
  message_count: number;
  input_tokens: number;
  output_tokens: number;
  /** Set while a turn runs; null between turns. */
  turn_started_at: string | null;
  /** What the running turn holds of its daily token budgets (conversations/budgets.ts); 0 between turns. bigint: read with Number(). */
  turn_reserved_tokens: number | string;
  created_at: string;
  updated_at: string;
  /** Widget conversations: the host page's URL where the visitor started; null for the others. */
  page_url: string | null;
  /** Widget conversations: the host page's UTM parameters as a JSON object; null when none. */
  utm: string | null;
  /** `bot`, `waiting`, `human` or `closed` (conversations/handoff-rules.ts). */
  status: string;
  /** The person holding it (`usr_…` of the same organization); null when nobody does. */
  assignee_id: string | null;
  /** The last request for a person. */
  handoff_requested_at: string | null;
  /** While waiting: when the agent takes the conversation back. */
  handoff_deadline_at: string | null;
}

/** Model tokens an agent's widget conversations used on one UTC day: its widget budget's count (`agents.chat_daily_token_budget`). */
export interface WidgetTokenUsageTable {
  org_id: string;
  agent_id: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** bigint: PostgreSQL answers it as text, so read it with Number(). */
  tokens: number | string;
  /** The most tokens one turn used that day (bigint): the size of the next turns' reservations. */
  largest_turn: number | string;
}

/** A chat widget visitor's session: the token's SHA-256 only; ends 7 idle days after its last use. */
export interface ChatSessionsTable {
  /** `cses_…`: never shown to the visitor (the token is what they hold). */
  id: string;
  token_hash: string;
  org_id: string;
  agent_id: string;
  conversation_id: string;
  /** The visitor's messages so far (the per-session limit's count). */
  visitor_messages: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** Model tokens (input + output) an organization's conversation turns used on one UTC day: its daily budget's count. */
export interface ConversationTokenUsageTable {
  org_id: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** bigint: PostgreSQL answers it as text, so read it with Number(). */
  tokens: number | string;
  /** The most tokens one turn used that day (bigint): the size of the next turns' reservations. */
  largest_turn: number | string;
}

export interface ConversationMessagesTable {
  id: string;
  conversation_id: string;
  /** 0, 1, 2…: the message's place in the conversation. */
  seq: number;
  /** user, assistant, tool, operator (a person of the organization) or event (a status change). */
  role: string;
  /** The text (user, assistant); the provider's message for an assistant message in error. */
  content: string | null;
  /** complete, cancelled or error. */
  status: string;
  error_code: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  /** JSON text: the arguments the model gave. */
  tool_arguments: string | null;
  /** JSON text: exactly what was handed back to the model. */
  tool_result: string | null;
  /** OK or the invoker's error code. */
  tool_outcome: string | null;
  tool_duration_ms: number | null;
  /** The call log's `call_…` (null when no call was logged: an unknown tool name, unparsable arguments). */
  call_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  created_at: string;
  /** An operator message's author, or the person who caused an event; null for the rest (and an API key's). */
  author_id: string | null;
  /** The author's name as it was then; `Team` for an API key's operator messages. */
  author_name: string | null;
  /** An event's `{status, assigneeName}` as JSON; null for other messages. */
  event_data: string | null;
}

// ── Model providers ───────────────────────────────────────────────────────────

export interface ModelProvidersTable {
  id: string;
  org_id: string;
  name: string;
  /** openai, anthropic or openai-compatible. */
  kind: string;
  /** Without a trailing slash. */
  base_url: string;
  /** lib/secrets.ts sealed value (AES-256-GCM, AAD `<provider id>:apiKey`); null: no key. */
  api_key_sealed: string | null;
  /** The id of the key it is sealed under (null with no key). */
  api_key_key_id: string | null;
  created_at: string;
  updated_at: string;
}

// ── Webhooks ──────────────────────────────────────────────────────────────────

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  /** https://, checked by the tool endpoints' save-time policy; every address checked again at connect time. */
  url: string;
  /** The subscribed event types, a JSON array as text. */
  events: string;
  description: string | null;
  /** lib/secrets.ts sealed `whsec_…` (AAD `<endpoint id>:signingSecret`). */
  secret_sealed: string;
  secret_key_id: string;
  /** 1 or 0. */
  enabled: number;
  /** Why the service disabled it (24 h of failed deliveries); null when enabled or disabled by an operator. */
  disabled_reason: string | null;
  /** The first failed attempt since the last success; null while deliveries succeed. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  id: string;
  org_id: string;
  type: string;
  /** The event's `data`, JSON text. */
  payload: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the worker may take it (pending only); null once it is settled. */
  next_attempt_at: string | null;
  /** A worker holds it until then (its attempt in flight); a lease that ran out is free again. */
  locked_until: string | null;
  last_status: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  /** The exact body last sent; nulled after 7 days. */
  request_body: string | null;
  /** The start of the last answer (at most 4 KB); nulled after 7 days. */
  response_body: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** A unit of work's webhook events, until the delivery worker moves them into events and deliveries (outbox.ts). */
export interface WebhookOutboxTable {
  id: string;
  org_id: string;
  /** JSON: the events as outbox.ts's OutboxEvent `[{id, type, endpoints, data}]` (the data embedded, serialized once). */
  events: string;
  created_at: string;
}

export type NotificationKind = 'lead' | 'handoff';
export type NotificationStatus = 'pending' | 'sent' | 'failed';

/** One email to one member: a notice (a lead, a hand-off request) and its recipient (notifications/outbox.ts). */
export interface NotificationOutboxTable {
  notice_id: string;
  user_id: string;
  org_id: string;
  kind: NotificationKind;
  /** JSON: what the email is rendered from when it is sent. */
  payload: string;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: string;
  /** A worker holds it until then (its send in flight); a lease that ran out is free again. */
  locked_until: string | null;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
}

/** A member's own notification switches; no row: both on. */
export interface NotificationPreferencesTable {
  user_id: string;
  org_id: string;
  leads: number;
  handoffs: number;
  updated_at: string;
}

/** The audit log (audit/): one row per sensitive action, append-only; never a secret. */
export interface AuditLogTable {
  id: string;
  /** The organization the action belongs to; null for a developer's own actions (and a person without one). */
  org_id: string | null;
  /** The developer account the action belongs to (apps, tools; a developer's sign-in); null otherwise. */
  developer_id: string | null;
  actor_type: 'user' | 'api_key' | 'agent_key' | 'cli' | 'system';
  actor_id: string | null;
  /** Who, readably: an email or a key's `svc_org_…abcd`; never a secret. */
  actor_label: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** A small JSON object: names, roles, versions; never a secret or a person's data. */
  details: string;
  created_at: string;
}

export const WEBHOOK_OUTBOX_COLUMNS: Record<keyof WebhookOutboxTable, true> = { id: true, org_id: true, events: true, created_at: true };

export interface DB {
  developers: DevelopersTable;
  apps: AppsTable;
  access_tokens: AccessTokensTable;
  tools: ToolsTable;
  tool_revisions: ToolRevisionsTable;
  orgs: OrgsTable;
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  org_api_keys: OrgApiKeysTable;
  agents: AgentsTable;
  custom_fields: CustomFieldsTable;
  pipelines: PipelinesTable;
  stages: StagesTable;
  contacts: ContactsTable;
  contact_erasures: ContactErasuresTable;
  notes: NotesTable;
  opportunities: OpportunitiesTable;
  forms: FormsTable;
  consent_versions: ConsentVersionsTable;
  submissions: SubmissionsTable;
  idempotency_keys: IdempotencyKeysTable;
  installations: InstallationsTable;
  installation_agents: InstallationAgentsTable;
  installation_credentials: InstallationCredentialsTable;
  oauth_connections: OAuthConnectionsTable;
  oauth_states: OAuthStatesTable;
  mcp_clients: McpClientsTable;
  mcp_grants: McpGrantsTable;
  mcp_codes: McpCodesTable;
  mcp_tokens: McpTokensTable;
  tool_calls: ToolCallsTable;
  agent_keys: AgentKeysTable;
  form_views: FormViewsTable;
  model_providers: ModelProvidersTable;
  conversations: ConversationsTable;
  conversation_messages: ConversationMessagesTable;
  conversation_token_usage: ConversationTokenUsageTable;
  widget_token_usage: WidgetTokenUsageTable;
  chat_sessions: ChatSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_outbox: WebhookOutboxTable;
  notification_outbox: NotificationOutboxTable;
  notification_preferences: NotificationPreferencesTable;
  audit_log: AuditLogTable;
}
