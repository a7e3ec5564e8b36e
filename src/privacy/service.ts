import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';
import type { ChatRepo } from '../chat/repo.js';
import type { ConversationsRepo } from '../conversations/repo.js';
import type { ContactsRepo } from '../crm/contacts-repo.js';
import { contactNotFound } from '../crm/errors.js';
import type { OpportunitiesRepo } from '../crm/opportunities-repo.js';
import { presentContact, presentNote, presentOpportunity } from '../crm/present.js';
import type { Transact } from '../db/transaction-runner.js';
import type { FormsRepo } from '../forms/repo.js';
import type { Clock } from '../lib/clock.js';
import { isPlainObject } from '../lib/json.js';
import type { NotificationsRepo } from '../notifications/repo.js';
import type { OrgPrincipal } from '../orgs/auth.js';
import { recordWebhookEvent } from '../webhooks/outbox.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import { redactValues, redactor } from './redact.js';
import type { PrivacyRepo } from './repo.js';
import type { Erasure, PersonExport } from './schema.js';
import type { TombstoneHasher } from './tombstone.js';

/** The repos an erasure writes with, in one transaction: each feature's own repo erases its own tables. */
export interface PrivacyRepos {
  privacy: PrivacyRepo;
  contacts: ContactsRepo;
  opportunities: OpportunitiesRepo;
  forms: FormsRepo;
  conversations: ConversationsRepo;
  chat: ChatRepo;
  webhooks: WebhooksRepo;
  notifications: NotificationsRepo;
  audit: AuditRepo;
}

const json = (text: string | null): Record<string, unknown> => {
  if (text === null) return {};
  const value: unknown = JSON.parse(text);
  return isPlainObject(value) ? value : { value };
};

/**
 * Erasing and exporting a person (docs/privacy.md). The contact's id finds everything: its notes, opportunities and
 * submissions by contact_id; its chats by the conversation its lead cards were submitted from
 * (submissions.conversation_id); webhook bodies and notification emails by the contact's or a conversation's id in
 * their JSON (every payload that carries the person's data names the contact or the conversation).
 */
export function createPrivacyService(deps: {
  /** Reads of an export, over the pool. */
  repos: Pick<PrivacyRepos, 'privacy' | 'contacts' | 'opportunities'>;
  /** One transaction per erasure (the operator writes' runner). */
  transact: Transact<PrivacyRepos>;
  hasher: TombstoneHasher;
  clock: Clock;
  /** An erasure's entry is written in its transaction; an export's right after it is built. */
  audit: AuditLog;
}) {
  const { repos, transact, hasher, clock, audit } = deps;

  /**
   * Erases the contact in one transaction. A second call finds the tombstone and answers the first erasure again
   * (`alreadyErased`), writing nothing: 404 CONTACT_NOT_FOUND only for an id that never was the org's contact.
   */
  async function erase(principal: OrgPrincipal, contactId: string, context: AuditContext): Promise<Erasure> {
    const { orgId } = principal;
    const now = clock.now().toISOString();
    return transact(async (unit) => {
      const contact = await unit.contacts.find(orgId, contactId);
      if (!contact) {
        const tombstone = await unit.contacts.findErasure(orgId, contactId);
        if (!tombstone) throw contactNotFound();
        return { contactId, erasedAt: tombstone.erased_at, alreadyErased: true, removed: { notes: 0, submissions: 0, opportunities: 0, conversations: 0, webhookEvents: 0, notifications: 0 } };
      }
      const conversationIds = await unit.privacy.conversationIdsOf(orgId, contactId);
      const notes = (await unit.privacy.notesOf(orgId, contactId)).length;
      // Opportunities stay (the business's pipeline): the person's name, email and phone leave their title and custom values.
      const redact = redactor([contact.name, contact.email, contact.phone]);
      const opportunities = await unit.opportunities.allOf(orgId, contactId);
      for (const opportunity of opportunities) {
        const custom = JSON.stringify(redactValues(json(opportunity.custom), redact));
        await unit.opportunities.scrub(orgId, opportunity.id, { title: redact(opportunity.title), custom, updated_at: now });
      }
      const submissions = await unit.forms.anonymizeSubmissionsOf(orgId, contactId);
      const conversations = await unit.conversations.eraseConversations(orgId, conversationIds);
      await unit.chat.endSessionsOf(orgId, conversationIds);
      // Webhook bodies and emails name the contact (contact, submission and opportunity events, lead emails) or the
      // conversation (hand-off events and emails).
      const mentioned = [contactId, ...conversationIds];
      const webhooks = await unit.webhooks.eraseMentions(orgId, mentioned, now);
      const notifications = await unit.notifications.deleteNoticesMentioning(orgId, mentioned);
      const erased = await unit.contacts.erase({
        contact_id: contactId,
        org_id: orgId,
        email_hash: contact.email === null ? null : hasher.email(contact.email),
        phone_hash: contact.phone === null ? null : hasher.phone(contact.phone),
        erased_at: now,
      });
      if (!erased) throw contactNotFound();
      // After the bodies were erased: this event names the contact and nothing else.
      await recordWebhookEvent(unit, { orgId, type: 'contact.erased', data: { contactId } }, now);
      await audit.record(context, { action: 'contact.erased', orgId, target: contactId }, unit);
      return {
        contactId, erasedAt: now, alreadyErased: false,
        removed: { notes, submissions, opportunities: opportunities.length, conversations, webhookEvents: webhooks.events, notifications },
      };
    });
  }

  /** Everything held about the contact, as one document: the same set an erasure removes. */
  async function exportPerson(principal: OrgPrincipal, contactId: string, context: AuditContext): Promise<PersonExport> {
    const { orgId } = principal;
    const contact = await repos.contacts.find(orgId, contactId);
    if (!contact) throw contactNotFound();
    const { privacy } = repos;
    const conversationIds = await privacy.conversationIdsOf(orgId, contactId);
    const mentioned = [contactId, ...conversationIds];
    const [notes, opportunities, submissions, conversations, messages, stored, outbox, notices] = await Promise.all([
      privacy.notesOf(orgId, contactId),
      repos.opportunities.allOf(orgId, contactId),
      privacy.submissionsOf(orgId, contactId),
      privacy.conversations(orgId, conversationIds),
      privacy.messagesOf(conversationIds),
      privacy.webhookEventsMentioning(orgId, mentioned),
      privacy.outboxMentioning(orgId, mentioned),
      privacy.noticesMentioning(orgId, mentioned),
    ]);
    const needles = mentioned.map((id) => JSON.stringify(id));
    const queued = outbox.flatMap((row) => (JSON.parse(row.events) as Array<{ id: string; type: string; data: unknown }>)
      .filter((event) => needles.some((needle) => JSON.stringify(event.data).includes(needle)))
      .map((event) => ({ id: event.id, type: event.type, createdAt: row.created_at, queued: true, data: json(JSON.stringify(event.data ?? null)), deliveries: [] })));
    const exported: PersonExport = {
      exportedAt: clock.now().toISOString(),
      contact: presentContact(contact),
      notes: notes.map(presentNote),
      opportunities: opportunities.map((row) => presentOpportunity(row)),
      submissions: submissions.map((row) => ({
        id: row.id, formId: row.form_id, formTitle: row.form_title, opportunityId: row.opportunity_id, conversationId: row.conversation_id,
        values: json(row.field_values), custom: json(row.custom), metadata: json(row.metadata), ip: row.ip, userAgent: row.user_agent,
        consentVersion: row.consent_version, createdAt: row.created_at,
      })),
      consents: submissions.map((row) => ({ formId: row.form_id, formTitle: row.form_title, version: row.consent_version, text: row.consent_text, agreedAt: row.created_at, submissionId: row.id })),
      conversations: conversations.map((row) => ({
        id: row.id, agentId: row.agent_id, source: row.source, pageUrl: row.page_url, utm: json(row.utm), createdAt: row.created_at,
        messages: messages.filter((m) => m.conversation_id === row.id).map((m) => ({
          seq: m.seq, role: m.role, content: m.content, toolName: m.tool_name, toolArguments: m.tool_arguments, toolResult: m.tool_result, createdAt: m.created_at,
        })),
      })),
      webhookEvents: [
        ...stored.events.map((event) => ({
          id: event.id, type: event.type, createdAt: event.created_at, queued: false, data: json(event.payload),
          deliveries: stored.deliveries.filter((d) => d.event_id === event.id).map((d) => ({
            id: d.id, endpointId: d.endpoint_id, status: d.status, requestBody: d.request_body, responseBody: d.response_body, createdAt: d.created_at,
          })),
        })),
        ...queued,
      ],
      notifications: notices.map((row) => ({ kind: row.kind, status: row.status, recipientId: row.user_id, createdAt: row.created_at, sentAt: row.sent_at, payload: json(row.payload) })),
    };
    await audit.record(context, { action: 'contact.exported', orgId, target: contactId });
    return exported;
  }

  return { erase, export: exportPerson };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
