import { sql, type Kysely } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import { CONTACT_COLUMNS, type ContactErasuresTable, type ContactsTable, type DB, type OpportunitiesTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst } from '../db/query-helpers.js';
import { tryUnique } from '../db/savepoint.js';

/** What an update may change: never the id, the org, the creation time or the source. */
export type ContactChanges = Partial<Omit<ContactsTable, 'id' | 'org_id' | 'created_at' | 'source'>>;

// Runs on every form submission, so it is built and compiled once (see db/query-template.ts).
const insertContactIfAbsent = queryTemplate(CONTACT_COLUMNS, (db, row: ContactsTable) =>
  db.insertInto('contacts').values(row).onConflict((oc) => oc.doNothing()).returning('id'),
);

export interface ContactFilter {
  email?: string | undefined;
  phone?: string | undefined;
  /** A LIKE pattern, already lowercased and escaped with `\`. */
  like?: string | undefined;
  /** A LIKE pattern over digits, matched against the E.164 phone. */
  digitsLike?: string | undefined;
}

const DETAIL_LIMIT = 100;

/**
 * A contact that was not erased. An erased contact's row stays as an empty stub (its opportunities and anonymized
 * submissions point at it) and its tombstone in contact_erasures hides it from every read and write of the API.
 */
const notErased = sql<boolean>`not exists (select 1 from contact_erasures where contact_erasures.contact_id = contacts.id)`;

/**
 * Kysely queries for contacts and what the contact detail shows, for the Operator API and for form
 * submissions alike: `createContactsRepo(db)` accepts a Kysely instance or a transaction.
 */
export function createContactsRepo(db: Kysely<DB>) {
  const update = (orgId: string, id: string, changes: ContactChanges) =>
    db.updateTable('contacts').set(changes).where('org_id', '=', orgId).where('id', '=', id).where(notErased).execute();
  return {
    list: (orgId: string, filter: ContactFilter, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('contacts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where(notErased)
        .$if(filter.email !== undefined, (qb) => qb.where('email', '=', filter.email!))
        .$if(filter.phone !== undefined, (qb) => qb.where('phone', '=', filter.phone!))
        .$if(filter.like !== undefined, (qb) =>
          qb.where((eb) => {
            const like = (column: 'name' | 'email' | 'phone' | 'company') => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${filter.like!} escape '\\'`;
            const terms = [like('name'), like('email'), like('phone'), like('company')];
            if (filter.digitsLike !== undefined) terms.push(sql<boolean>`coalesce(phone, '') like ${filter.digitsLike} escape '\\'`);
            return eb.or(terms);
          }),
        )
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    find: (orgId: string, id: string) => db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('id', '=', id).where(notErased).executeTakeFirst(),
    findByEmail: (orgId: string, email: string) => db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('email', '=', email).executeTakeFirst(),
    findByPhone: (orgId: string, phone: string) => db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('phone', '=', phone).executeTakeFirst(),
    /** Inserts unless a contact of the org already has this email or phone; true when a row was written. */
    insertIfAbsent: async (row: ContactsTable): Promise<boolean> => (await insertContactIfAbsent(db, row)).rows.length > 0,
    update,
    /** Inside a transaction only (a savepoint): false, and nothing changed, when another contact holds the email or phone. */
    updateIfUnique: (orgId: string, id: string, changes: ContactChanges): Promise<boolean> => tryUnique(db, () => update(orgId, id, changes)),
    remove: (orgId: string, id: string) => db.deleteFrom('contacts').where('org_id', '=', orgId).where('id', '=', id).where(notErased).executeTakeFirst(),

    // ── Erasure (privacy/, in its transaction) ──
    /** The tombstone of the org's contact `id`, when it was erased. */
    findErasure: (orgId: string, id: string) =>
      db.selectFrom('contact_erasures').selectAll().where('org_id', '=', orgId).where('contact_id', '=', id).executeTakeFirst(),
    /**
     * The contact's data goes: its notes are deleted, its row becomes an empty stub (no email, phone, name, company
     * or custom values; its opportunities and anonymized submissions still point at it), and the tombstone marks it
     * erased. False, and nothing written, when the contact does not exist or was already erased (the caller's read
     * and this write are in one transaction; the tombstone's primary key settles a race on PostgreSQL).
     */
    erase: async (tombstone: ContactErasuresTable): Promise<boolean> => {
      const { org_id: orgId, contact_id: id, erased_at: now } = tombstone;
      const stub = await db
        .updateTable('contacts')
        .set({ email: null, phone: null, name: null, company: null, custom: '{}', updated_at: now })
        .where('org_id', '=', orgId).where('id', '=', id).where(notErased)
        .executeTakeFirst();
      if (stub.numUpdatedRows === 0n) return false;
      await db.deleteFrom('notes').where('org_id', '=', orgId).where('contact_id', '=', id).execute();
      await db.insertInto('contact_erasures').values(tombstone).execute();
      return true;
    },
    /** Erased contacts of the org whose email or phone had this keyed hash (privacy/tombstone.ts). */
    erasuresMatching: (orgId: string, hashes: { email?: string | undefined; phone?: string | undefined }) =>
      db.selectFrom('contact_erasures').selectAll().where('org_id', '=', orgId)
        .where((eb) => eb.or([
          ...(hashes.email !== undefined ? [eb('email_hash', '=', hashes.email)] : []),
          ...(hashes.phone !== undefined ? [eb('phone_hash', '=', hashes.phone)] : []),
          sql<boolean>`1 = 0`,
        ]))
        .execute(),

    findNote: (orgId: string, id: string) => db.selectFrom('notes').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirstOrThrow(),
    notesOf: (orgId: string, contactId: string) =>
      db.selectFrom('notes').selectAll().where('org_id', '=', orgId).where('contact_id', '=', contactId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(DETAIL_LIMIT).execute(),
    opportunitiesOf: (orgId: string, contactId: string): Promise<OpportunitiesTable[]> =>
      db.selectFrom('opportunities').selectAll().where('org_id', '=', orgId).where('contact_id', '=', contactId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(DETAIL_LIMIT).execute(),
    submissionsOf: (orgId: string, contactId: string) =>
      db
        .selectFrom('submissions')
        .leftJoin('consent_versions', (join) => join.onRef('consent_versions.form_id', '=', 'submissions.form_id').onRef('consent_versions.version', '=', 'submissions.consent_version'))
        .selectAll('submissions')
        .select('consent_versions.text as consent_text')
        .where('submissions.org_id', '=', orgId)
        .where('submissions.contact_id', '=', contactId)
        .orderBy('submissions.created_at', 'desc')
        .orderBy('submissions.id', 'desc')
        .limit(DETAIL_LIMIT)
        .execute(),
  };
}

export type ContactsRepo = ReturnType<typeof createContactsRepo>;
