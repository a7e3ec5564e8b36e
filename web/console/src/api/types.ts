/**
 * Wire shapes of the JSON APIs the console uses: the session API (docs: sessions) and the Operator API
 * (`/api/org/*`, docs/operator-api.md and docs/forms-api.md). Every shape here is an alias into
 * schema.d.ts, which `npm run console:types` generates from the server's OpenAPI document (the routes'
 * TypeBox schemas); CI fails when it is out of date. Pages import wire types from this module only.
 */

import type { components } from './schema';
import type { BuiltInField, FieldSetting } from '../../../form/types';

type Schemas = components['schemas'];

// Shapes the form renderer shares with the API (one definition, in web/form/types.ts).
export { BUILT_IN_FIELDS, type Branding, type BuiltInField, type FieldSetting } from '../../../form/types';

/** A cursor page of any list (`{items, nextCursor}`). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ── Session ──

export type SessionUser = Schemas['SessionUser'];
export type Role = SessionUser['role'];
export type SessionOrganization = Schemas['SessionOrganization'];
export type SessionDeveloper = Schemas['SessionDeveloper'];
export type Session = Schemas['SessionInfo'];
export type InvitationPreview = Schemas['InvitationPreview'];
export type Member = Schemas['Member'];
/** `PATCH /api/org/members/{id}`: an owner makes a member an owner, or an owner a member. */
export type MemberRoleBody = Schemas['MemberRoleBody'];
export type Invitation = Schemas['Invitation'];
/** An invitation just made: `url` is the accept link, only when the server sends no email (no SMTP configured). */
export type CreatedInvitation = Schemas['CreatedInvitation'];

// ── Organization ──

export type Organization = Schemas['Organization'];
/** The signed-in member's own email notifications, and whether the server can send any (SMTP_URL). */
export type NotificationSettings = Schemas['NotificationSettings'];
/** Each limit of the organization with its use (GET /api/org/limits); the developer's (GET /api/dev/limits). */
export type OrgLimits = Schemas['OrgLimits'];
export type DeveloperLimits = Schemas['DeveloperLimits'];
export type LimitUsage = OrgLimits['forms'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Agent = Schemas['Agent'];
/** An agent's chat widget settings (the agent page's Chat widget section). */
export type AgentChat = Schemas['AgentChat'];
export type AgentChatPatch = Schemas['AgentChatPatch'];
/** An agent's hand-off settings (the agent page's Hand-off section; issue 35). */
export type AgentHandoff = Schemas['AgentHandoff'];
export type AgentOfficeHours = Schemas['AgentOfficeHours'];
export type Weekday = AgentOfficeHours['days'][number];

// ── Models (pages/models) ──

export type ModelProvider = Schemas['ModelProvider'];
export type ModelProviderKind = ModelProvider['kind'];
export type ModelProviderInput = Schemas['ModelProviderCreate'];
export type ModelProviderPatch = Schemas['ModelProviderPatch'];
export type AgentModel = Schemas['AgentModel'];
export type AgentModelInput = Schemas['AgentModelInput'];

// ── CRM settings ──

export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'phone', 'url', 'date', 'checkbox', 'select'] as const satisfies readonly Schemas['CustomField']['type'][];
export type CustomFieldType = Schemas['CustomField']['type'];
export type CustomField = Schemas['CustomField'];
export type Stage = Schemas['Stage'];
export type Pipeline = Schemas['Pipeline'];

// ── Forms ──

export type Fields = Record<BuiltInField, FieldSetting>;
export type FormCustomFieldRef = Schemas['FormCustomFieldRef'];
export type Form = Schemas['Form'];
export type FormWithCounts = Schemas['FormWithCounts'];
/** `GET /api/org/forms/{id}/stats`: the last 30 UTC days, oldest first, today last. */
export type FormStats = Schemas['FormStats'];
/** What the console sends on create and update: every field, `customFields` by key. */
export type FormInput = Required<Omit<Schemas['FormCreate'], 'fields' | 'customFields'>> & {
  fields: Fields;
  customFields: (Required<Pick<Schemas['FormCustomFieldRefInput'], 'key'>> & Schemas['FormCustomFieldRefInput'])[];
};
export type ConsentVersion = Schemas['ConsentVersion'];
export type Submission = Schemas['Submission'];
export type EmbedSnippets = Schemas['EmbedSnippets'];
export type Deleted = Schemas['Deleted'];

// ── CRM records (pages/crm) ──

export type Contact = Schemas['Contact'];
export type Note = Schemas['Note'];
export type Opportunity = Schemas['Opportunity'];
export type ContactSubmission = Schemas['ContactSubmission'];
export type ContactDetail = Schemas['ContactDetail'];

// ── Tools (pages/tools) ──

export type ToolParameter = Schemas['ToolParameter'];
/** A developer's own tool (the Developer API's working copy). */
export type DeveloperTool = Schemas['ToolRecord'];
/** A developer's OAuth app, as listed (never a secret). */
export type DeveloperApp = Schemas['App'];
/** An app with its new client secret: answered once, at registration and at rotation. */
export type AppCredentials = Schemas['AppCredentials'];
export type CatalogTool = Schemas['CatalogTool'];
export type AuthType = CatalogTool['authType'];
export type ToolCategory = CatalogTool['category'];
export type Installation = Schemas['Installation'];
/** An oauth2 installation's (or a developer's test account's) connection to the provider account; never a token. */
export type OAuthConnection = Schemas['OAuthConnection'];
/** A connection just started: the provider's page to send the browser to. */
export type OAuthConnectionStart = Schemas['OAuthConnectionStart'];
export type OAuthDisconnected = Schemas['OAuthDisconnected'];
export type Credentials = Schemas['InstallationCredentials'];
export type InstallationInput = Schemas['InstallationCreate'];
export type InstallationPatch = Schemas['InstallationPatch'];
export type ToolCallResult = Schemas['ToolCallResult'];
export type ToolCall = Schemas['ToolCall'];
export type McpToolDefinition = Schemas['McpToolDefinition'];
export type AgentKey = Schemas['AgentKey'];
export type CreatedAgentKey = Schemas['CreatedAgentKey'];

// ── Conversations (pages/conversations) ──

export type Conversation = Schemas['Conversation'];
export type ConversationCreated = Schemas['ConversationCreated'];
export type ConversationMessage = Schemas['ConversationMessage'];
export type ConversationToolCall = Schemas['ConversationToolCall'];
export type Transcript = Schemas['ConversationTranscript'];
export type TokenUsage = Schemas['TokenUsage'];
export type ConversationUtm = Schemas['ConversationUtm'];
/** A member a conversation names: its assignee, an operator message's or an event's author. */
export type ConversationPerson = Schemas['ConversationPerson'];
export type ConversationAssignBody = Schemas['ConversationAssignBody'];

// ── Webhooks (pages/webhooks) ──

export type Webhook = Schemas['Webhook'];
/** A webhook with its signing secret: answered once, at creation and at rotation. */
export type CreatedWebhook = Schemas['CreatedWebhook'];
export type WebhookInput = Schemas['WebhookCreate'];
export type WebhookPatch = Schemas['WebhookPatch'];
export type WebhookEventType = WebhookInput['events'][number];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type AuditEntry = Schemas['AuditEntry'];
