import { sql, type Kysely } from 'kysely';

/**
 * Erasing a person (issue 36, privacy/; docs/privacy.md "Erase a person").
 *
 * - `contact_erasures`: the tombstone of an erased contact. The contact's row stays as an empty stub (no email,
 *   phone, name, company or custom values) because its opportunities and anonymized submissions point at it;
 *   a tombstone row marks it erased (the CRM's reads skip it). `email_hash` and `phone_hash` are HMAC-SHA256 of
 *   the normalized email and E.164 phone under a key derived from SECRETS_KEY (privacy/tombstone.ts): nothing
 *   readable, yet a value held later can be told to be the erased person's.
 * - `submissions.conversation_id`: the chat widget conversation a lead card's submission came from (null for
 *   every other submission), recorded when the lead is submitted, so an erasure finds the person's chats.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('contact_erasures')
    .addColumn('contact_id', 'text', (c) => c.primaryKey().references('contacts.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('email_hash', 'text')
    .addColumn('phone_hash', 'text')
    .addColumn('erased_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contact_erasures_email_idx').on('contact_erasures').columns(['org_id', 'email_hash']).where(sql.ref('email_hash'), 'is not', null).execute();
  await db.schema.createIndex('contact_erasures_phone_idx').on('contact_erasures').columns(['org_id', 'phone_hash']).where(sql.ref('phone_hash'), 'is not', null).execute();

  await db.schema.alterTable('submissions').addColumn('conversation_id', 'text').execute();
  await db.schema.createIndex('submissions_conversation_idx').on('submissions').column('conversation_id').where(sql.ref('conversation_id'), 'is not', null).execute();
}
