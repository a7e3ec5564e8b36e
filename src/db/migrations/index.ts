import type { Migration } from 'kysely';
import * as developerSide from './20261122T0100_developer_side.js';
import * as businessSide from './20261122T0200_business_side.js';
import * as formsIdempotencyExpiry from './20261122T0330_forms_idempotency_expiry.js';
import * as toolInstallations from './20261123T1000_tool_installations.js';
import * as formViews from './20261123T1100_form_views.js';
import * as accountsSessions from './20261123T1400_accounts_sessions.js';
import * as peopleAndDevelopers from './20261126T1000_people_and_developers.js';
import * as appSecretRotation from './20261126T1100_app_secret_rotation.js';
import * as modelProviders from './20261126T1300_model_providers.js';
import * as conversations from './20261126T1500_conversations.js';
import * as conversationLimits from './20261126T1700_conversation_limits.js';
import * as webhooks from './20261126T1800_webhooks.js';
import * as chatWidget from './20261126T2300_chat_widget.js';
import * as webhookOutbox from './20261127T0000_webhook_outbox.js';
import * as turnReservations from './20261128T0000_turn_reservations.js';
import * as tenantLimits from './20261128T0100_tenant_limits.js';
import * as oauthConnections from './20261129T0000_oauth_connections.js';
import * as mcpAuthorization from './20261129T0100_mcp_authorization.js';
import * as notifications from './20261129T0200_notifications.js';
import * as handoff from './20261129T0300_handoff.js';
import * as auditLog from './20261129T0400_audit_log.js';
import * as erasure from './20261129T0500_erasure.js';
import * as retention from './20261129T0600_retention.js';

/**
 * Every migration, by name. Names sort by time; a landed migration is never edited:
 * change the schema with a new file.
 */
export const migrations: Record<string, Migration> = {
  '20261122T0100_developer_side': developerSide,
  '20261122T0200_business_side': businessSide,
  '20261122T0330_forms_idempotency_expiry': formsIdempotencyExpiry,
  '20261123T1000_tool_installations': toolInstallations,
  '20261123T1100_form_views': formViews,
  '20261123T1400_accounts_sessions': accountsSessions,
  '20261126T1000_people_and_developers': peopleAndDevelopers,
  '20261126T1100_app_secret_rotation': appSecretRotation,
  '20261126T1300_model_providers': modelProviders,
  '20261126T1500_conversations': conversations,
  '20261126T1700_conversation_limits': conversationLimits,
  '20261126T1800_webhooks': webhooks,
  '20261126T2300_chat_widget': chatWidget,
  '20261127T0000_webhook_outbox': webhookOutbox,
  '20261128T0000_turn_reservations': turnReservations,
  '20261128T0100_tenant_limits': tenantLimits,
  '20261129T0000_oauth_connections': oauthConnections,
  '20261129T0100_mcp_authorization': mcpAuthorization,
  '20261129T0200_notifications': notifications,
  '20261129T0300_handoff': handoff,
  '20261129T0400_audit_log': auditLog,
  '20261129T0500_erasure': erasure,
  '20261129T0600_retention': retention,
};
