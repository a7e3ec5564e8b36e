import { recordWebhookEvent } from '../webhooks/outbox.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import type { Conversation } from './schema.js';

/**
 * Hand-off's webhook events (docs/webhooks.md), in the transaction that changes the conversation's status:
 * `conversation.handoff_requested` (a person was asked for and the conversation waits) and `conversation.closed`.
 * `data.conversation` is the conversation as committed (as GET /api/org/conversations/{id} answers it, without messages).
 */
export async function recordConversationEvent(repos: { webhooks: WebhooksRepo }, type: 'conversation.handoff_requested' | 'conversation.closed', conversation: Conversation & { orgId: string }, now: string): Promise<void> {
  const { orgId, ...data } = conversation;
  await recordWebhookEvent(repos, { orgId, type, data: { conversation: data } }, now);
}
