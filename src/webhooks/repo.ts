import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import { containsAny, countOf, newestFirst, skipLockedOnPostgres } from '../db/query-helpers.js';
import { queryTemplate } from '../db/query-template.js';
import { WEBHOOK_OUTBOX_COLUMNS, type DB, type WebhookOutboxTable, type WebhookDeliveriesTable, type WebhookDeliveryStatus, type WebhookEndpointsTable, type WebhookEventsTable } from '../db/tables.js';
import { subscriptionsFingerprint } from './outbox-ctes.js';
import { subscriptionsOf, type Subscriptions } from './subscriptions.js';

export type EndpointChanges = Partial<Pick<WebhookEndpointsTable, 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'failing_since' | 'secret_sealed' | 'secret_key_id' | 'updated_at'>>;
export type DeliveryChanges = Partial<Omit<WebhookDeliveriesTable, 'id' | 'org_id' | 'endpoint_id' | 'event_id' | 'created_at'>>;

/** A claimed delivery with what its attempt needs: the endpoint's URL and sealed secret, the event. */
export interface ClaimedDelivery {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  created_at: string;
  url: string;
  secret_sealed: string;
  type: string;
  payload: string;
  event_created_at: string;
}

/** A delivery as the log shows it: the row and its event's type. */
export type DeliveryRow = WebhookDeliveriesTable & { type: string };

/**
 * The outbox's insert and read, compiled once (db/query-template.ts): they run in every submission of an
 * org with webhooks, where building and compiling each query again cost as much as SQLite's own work.
 */
const insertOutboxRow = queryTemplate(WEBHOOK_OUTBOX_COLUMNS, (db, row: WebhookOutboxTable) => db.insertInto('webhook_outbox').values(row));
const selectSubscriptions = queryTemplate<{ org_id: string }, { id: string; events: string }>({ org_id: true }, (db, row) =>
  db.selectFrom('webhook_endpoints').select(['id', 'events']).where('org_id', '=', row.org_id).where('enabled', '=', 1));

/** Rows per insert when dispatching: 16 columns × 500 stays far below SQLite's 32,766 parameters and PostgreSQL's 65,535. */
const ROWS_PER_INSERT = 500;
function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) out.push(rows.slice(i, i + ROWS_PER_INSERT));
  return out;
}
/** Any fixed number: the dispatch lock's key among PostgreSQL advisory locks ('whdp'). */
const DISPATCH_LOCK = 0x77686470;

/** Kysely queries for webhooks. Every query on org data takes the org id; it writes the three webhook tables only. */
export function createWebhooksRepo(db: Kysely<DB>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  return {
    // ── Endpoints ──
    insertEndpoint: (row: WebhookEndpointsTable) => db.insertInto('webhook_endpoints').values(row).execute(),
    countEndpoints: (orgId: string) => countOf(db.selectFrom('webhook_endpoints').where('org_id', '=', orgId)),
    findEndpoint: (orgId: string, id: string) =>
      db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    listEndpoints: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).$call((qb) => newestFirst(qb, limit, cursor)).execute(),
    updateEndpoint: (orgId: string, id: string, changes: EndpointChanges) =>
      db.updateTable('webhook_endpoints').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** Its deliveries go with it (foreign key, on delete cascade). */
    deleteEndpoint: (orgId: string, id: string) =>
      db.deleteFrom('webhook_endpoints').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    // ── The outbox (called in the producer's transaction) ──
    /**
     * The org's enabled endpoints and the types each receives (one indexed read): a unit of work that
     * emits several events reads it once, and skips building payloads nobody receives (outbox.ts).
     */
    subscriptions: async (orgId: string): Promise<Subscriptions> => {
      const { rows } = await selectSubscriptions(db, { org_id: orgId });
      return subscriptionsOf(rows.map((row) => ({ id: row.id, events: JSON.parse(row.events) as string[] })));
    },
    /**
     * PostgreSQL: the subscriptions with their fingerprint (outbox-ctes.ts), read in one statement so
     * the two agree: what a node keeps to build a one-statement write's outbox rows.
     */
    subscriptionsWithFingerprint: async (orgId: string): Promise<{ subscriptions: Subscriptions; fingerprint: string }> => {
      const { rows } = await sql<{ id: string | null; events: string | null; fingerprint: string }>`
        select w.id, w.events, f.fingerprint
        from (select ${subscriptionsFingerprint(orgId)} as fingerprint) f
        left join webhook_endpoints w on w.org_id = ${orgId} and w.enabled = 1`.execute(db);
      const endpoints = rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, events: JSON.parse(row.events!) as string[] }));
      return { subscriptions: subscriptionsOf(endpoints), fingerprint: rows[0]?.fingerprint ?? '' };
    },
    insertEvent: (row: WebhookEventsTable) => db.insertInto('webhook_events').values(row).execute(),
    insertOutbox: (row: WebhookOutboxTable) => insertOutboxRow(db, row),

    // ── Dispatch (dispatch.ts; in one transaction) ──
    /**
     * One dispatcher at a time across nodes (PostgreSQL: a transaction-scoped advisory lock, false when
     * another node holds it), so outbox rows become deliveries in id order; SQLite has one writer anyway.
     */
    takeDispatchLock: async (): Promise<boolean> => {
      if (!postgres) return true;
      const { rows } = await sql<{ taken: boolean }>`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as taken`.execute(db);
      return rows[0]?.taken === true;
    },
    outboxHead: (limit: number) => db.selectFrom('webhook_outbox').selectAll().orderBy('id').limit(limit).execute(),
    existingEndpoints: async (ids: string[]): Promise<Set<string>> =>
      new Set(ids.length === 0 ? [] : (await db.selectFrom('webhook_endpoints').select('id').where('id', 'in', ids).execute()).map((row) => row.id)),
    deleteOutbox: (ids: string[]) => db.deleteFrom('webhook_outbox').where('id', 'in', ids).execute(),
    insertEvents: async (rows: WebhookEventsTable[]) => {
      for (const chunk of chunks(rows)) await db.insertInto('webhook_events').values(chunk).execute();
    },
    insertDeliveries: async (rows: WebhookDeliveriesTable[]) => {
      for (const chunk of chunks(rows)) await db.insertInto('webhook_deliveries').values(chunk).execute();
    },

    // ── The worker ──
    /**
     * Claims up to `limit` due deliveries by setting their lease, and answers their ids. Only the head of
     * each enabled endpoint's queue (its oldest pending delivery, found through the partial index on
     * pending rows) can be claimed, and only when it is due and no worker holds it (or its lease ran out):
     * so an endpoint has at most one delivery in flight, oldest first. The poll costs one index probe per
     * enabled endpoint, whatever the backlog (looking for heads among all due rows instead cost a scan of
     * the backlog per poll: 2,000 queued for one endpoint were delivered at 133/s on PostgreSQL; this way 745/s, and 2,256/s over 20
     * endpoints, to a loopback receiver).
     * On PostgreSQL the heads are locked with SKIP LOCKED, so two nodes never claim one delivery (the
     * second re-checks the lease under READ COMMITTED and skips rows the first holds); SQLite has one node.
     */
    claimDue: async (now: string, leaseUntil: string, limit: number): Promise<string[]> => {
      const lock = postgres ? sql`for update of h skip locked` : sql``;
      const result = await sql<{ id: string }>`
        update webhook_deliveries set locked_until = ${leaseUntil}
        where id in (
          select h.id from webhook_endpoints e
          join webhook_deliveries h on h.id = (
            select o.id from webhook_deliveries o
            where o.endpoint_id = e.id and o.status = 'pending'
            order by o.created_at, o.id
            limit 1
          )
          where e.enabled = 1 and h.next_attempt_at <= ${now}
            and (h.locked_until is null or h.locked_until <= ${now})
          order by h.next_attempt_at, h.id
          limit ${limit}
          ${lock}
        )
        returning id`.execute(db);
      return result.rows.map((row) => row.id);
    },
    /** Claims one delivery (the test ping, sent at once) unless a worker holds it. */
    claimOne: async (id: string, now: string, leaseUntil: string): Promise<boolean> => {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: leaseUntil })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    loadClaimed: (ids: string[]): Promise<ClaimedDelivery[]> =>
      db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
        .select(['d.id', 'd.org_id', 'd.endpoint_id', 'd.event_id', 'd.attempts', 'd.created_at', 'e.url', 'e.secret_sealed', 'ev.type', 'ev.payload', 'ev.created_at as event_created_at'])
        .where('d.id', 'in', ids)
        .orderBy('d.created_at')
        .orderBy('d.id')
        .execute(),
    /**
     * An attempt's outcome, written only while the delivery is still pending: one settled meanwhile (its contact
     * erased, privacy/) keeps no body of an attempt that was in flight.
     */
    recordAttempt: (id: string, changes: DeliveryChanges) =>
      db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).where('status', '=', 'pending').execute(),
    /** The endpoint's failure streak: starts it at `now` unless one runs; answers its start. */
    noteEndpointFailure: async (id: string, now: string): Promise<string | undefined> => {
      await db.updateTable('webhook_endpoints').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
      return (await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', id).executeTakeFirst())?.failing_since ?? undefined;
    },
    noteEndpointSuccess: (id: string) => db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute(),
    /** True for the one caller that disabled it (two nodes failing at once email once). */
    disableEndpoint: async (id: string, reason: string, now: string): Promise<boolean> => {
      const result = await db.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: reason, updated_at: now }).where('id', '=', id).where('enabled', '=', 1).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** The org's owners' addresses (users is the operators feature's, read here only). */
    ownerEmails: async (orgId: string): Promise<string[]> =>
      (await db.selectFrom('users').select('email').where('org_id', '=', orgId).where('role', '=', 'owner').orderBy('email').execute()).map((row) => row.email),
    orgName: async (orgId: string) => (await db.selectFrom('orgs').select('name').where('id', '=', orgId).executeTakeFirst())?.name,

    // ── The delivery log ──
    listDeliveries: (orgId: string, endpointId: string, limit: number, cursor: CursorPosition | undefined, status: WebhookDeliveryStatus | undefined): Promise<DeliveryRow[]> =>
      db
        .selectFrom('webhook_deliveries')
        .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
        .selectAll('webhook_deliveries')
        .select('webhook_events.type')
        .where('webhook_deliveries.org_id', '=', orgId)
        .where('webhook_deliveries.endpoint_id', '=', endpointId)
        .$if(status !== undefined, (qb) => qb.where('webhook_deliveries.status', '=', status!))
        .$call((qb) => newestFirst(qb, limit, cursor, 'webhook_deliveries'))
        .execute(),
    findDelivery: (orgId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> =>
      db
        .selectFrom('webhook_deliveries')
        .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
        .selectAll('webhook_deliveries')
        .select('webhook_events.type')
        .where('webhook_deliveries.org_id', '=', orgId)
        .where('webhook_deliveries.endpoint_id', '=', endpointId)
        .where('webhook_deliveries.id', '=', id)
        .executeTakeFirst(),
    insertDelivery: (row: WebhookDeliveriesTable) => db.insertInto('webhook_deliveries').values(row).execute(),
    insertEventWithDelivery: async (event: WebhookEventsTable, delivery: WebhookDeliveriesTable) => {
      await db.insertInto('webhook_events').values(event).execute();
      await db.insertInto('webhook_deliveries').values(delivery).execute();
    },

    // ── Erasure (privacy/, in its transaction) ──
    /**
     * Every webhook body of the org that names one of `ids` (the contact, its submissions and opportunities, its
     * conversations; matched JSON-quoted) loses the person: events still in the outbox are dropped from their row
     * (a row left empty goes); stored events keep their type and time with `{}` as data; their deliveries forget
     * request and response bodies, and those not yet sent are settled `failed` (never sent). The outbox first:
     * on PostgreSQL a dispatch moving those rows holds them, so the events it wrote are seen by the next statements.
     */
    eraseMentions: async (orgId: string, ids: readonly string[], now: string): Promise<{ events: number; deliveries: number }> => {
      const needles = ids.map((id) => JSON.stringify(id));
      const outbox = await db.selectFrom('webhook_outbox').select(['id', 'events'])
        .where('org_id', '=', orgId).where(containsAny('events', needles)).orderBy('id')
        .$if(postgres, (qb) => qb.forUpdate())
        .execute();
      for (const row of outbox) {
        const kept = (JSON.parse(row.events) as Array<{ data: unknown }>).filter((event) => !needles.some((needle) => JSON.stringify(event.data).includes(needle)));
        if (kept.length === 0) await db.deleteFrom('webhook_outbox').where('id', '=', row.id).execute();
        else await db.updateTable('webhook_outbox').set({ events: JSON.stringify(kept) }).where('id', '=', row.id).execute();
      }
      const events = (await db.updateTable('webhook_events').set({ payload: '{}' })
        .where('org_id', '=', orgId).where(containsAny('payload', needles))
        .returning('id').execute()).map((row) => row.id);
      if (events.length === 0) return { events: 0, deliveries: 0 };
      const deliveries = await db.updateTable('webhook_deliveries')
        .set({
          request_body: null,
          response_body: null,
          status: sql<WebhookDeliveryStatus>`case when status = 'pending' then 'failed' else status end`,
          last_error: sql<string | null>`case when status = 'pending' then 'Not sent: its contact was erased.' else last_error end`,
          next_attempt_at: null,
          locked_until: null,
          updated_at: now,
        })
        .where('org_id', '=', orgId).where('event_id', 'in', events)
        .executeTakeFirst();
      return { events: events.length, deliveries: Number(deliveries.numUpdatedRows) };
    },

    // ── `secrets rotate` ──
    secretsNotUnder: (keyId: string, limit: number) =>
      db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed']).where('secret_key_id', '!=', keyId).orderBy('id').limit(limit).execute(),
    /** Only if the stored value is still the one read: a secret rotated meanwhile stays as it was set. */
    replaceSealedSecret: (id: string, sealed: string, keyId: string, previousSealed: string) =>
      db.updateTable('webhook_endpoints').set({ secret_sealed: sealed, secret_key_id: keyId }).where('id', '=', id).where('secret_sealed', '=', previousSealed).execute(),

    /** Bodies older than `before` are forgotten, `limit` rows at a time; the rows stay (status, attempts). */
    forgetBodies: async (before: string, limit: number): Promise<number> => {
      const lock = postgres ? sql`for update skip locked` : sql``;
      const result = await sql`
        update webhook_deliveries set request_body = null, response_body = null
        where id in (
          select id from webhook_deliveries where request_body is not null and created_at < ${before}
          order by created_at limit ${limit} ${lock}
        )`.execute(db);
      return Number(result.numAffectedRows ?? 0n);
    },
    /**
     * Retention (src/retention-purges.ts): forgets the bodies of up to `limit` settled deliveries made before `before`
     * for the organizations whose `retention_webhook_bodies_days` is `days` (a pending one still needs its body to retry).
     * Through webhook_deliveries_org_bodies_idx; the rows stay.
     */
    forgetBodiesPastRetention: async (days: number, before: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('webhook_deliveries').select('id')
        .where('org_id', 'in', db.selectFrom('orgs').select('id').where('retention_webhook_bodies_days', '=', days))
        .where('request_body', 'is not', null)
        .where('created_at', '<', before)
        .where('status', '!=', 'pending')
        .limit(limit));
      const result = await db.updateTable('webhook_deliveries').set({ request_body: null, response_body: null }).where('id', 'in', batch).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
