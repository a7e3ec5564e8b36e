import type { FastifyBaseLogger } from 'fastify';
import { failureFields, isDatabaseUnavailable } from '../db/unavailable.js';
import type { RawHttpOutcome, ToolHttpClient } from '../net/http-client.js';
import { signatureHeaders } from '../net/signing.js';
import type { Clock } from '../lib/clock.js';
import type { Mailer } from '../lib/mailer.js';
import type { KeyRing } from '../lib/secrets.js';
import type { ClaimedDelivery, DeliveryChanges, WebhooksRepo } from './repo.js';
import { judge, nextAttemptAt, RETRY_WINDOW_MS } from './retries.js';
import { dispatchOutbox } from './dispatch.js';
import type { Transact } from '../db/transaction-runner.js';
import { openSigningSecret } from './secret.js';

export const EVENT_HEADER = 'X-Svc-Event';
export const DELIVERY_HEADER = 'X-Svc-Delivery';
/** What the log keeps of an answer. */
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface DeliverySchedule {
  /** Between polls when the last one found nothing due. */
  pollMs: number;
  /**
   * Deliveries in flight at once on this node (each to a different endpoint). A poll claims only what
   * fits, and polls again as soon as an attempt ends, so one slow endpoint never holds up the others.
   */
  batchSize: number;
}

const DEFAULT_SCHEDULE: DeliverySchedule = { pollMs: 1000, batchSize: 20 };
/**
 * Moving the outbox into deliveries (dispatch.ts) runs beside the sending, in a share of the worker's time: after
 * a dispatch of D ms the next waits D × (1 − share) / share (DISPATCH_INTERVAL_MS at least). The share is a tenth
 * while an endpoint ran dry since the last dispatch (its attempt ended and it had no next delivery ready: its next
 * events may be in the outbox), a fiftieth while every endpoint that finished an attempt had its next one ready.
 * With nothing to send at all (no delivery due, none in flight) it dispatches at once.
 *
 * Why, measured with 200,000 events queued for one webhook (docs/benchmarks.md): a dispatch of DISPATCH_BATCH rows
 * (600 events and 600 deliveries) takes 50–70 ms on SQLite and 110–230 ms on PostgreSQL, where a fixed 100 ms
 * between dispatches assumed 10 ms, so dispatch ran most of the time, moving ~5,500 events a second into a queue
 * sent at 217–400, and the backlog drained at a quarter of a short queue's pace. A tenth still moved 6–10 events
 * for each one sent, and on a loaded machine, where sending is short of CPU, that cost it up to 45% (PostgreSQL:
 * 3 ms more of the node's CPU per delivery). A queue that is fed needs nothing moved; the fiftieth keeps the outbox
 * moving for the events of other webhooks behind the backlog, and a queue that runs out is refilled at once.
 */
const DISPATCH_SHARE = 0.1;
const DISPATCH_SHARE_FED = 0.02;
/** The shortest wait between two dispatches of a busy node: an event waits at least this long plus a poll. */
const DISPATCH_INTERVAL_MS = 100;

export interface DeliveryWorkerDeps {
  repo: WebhooksRepo;
  /** Dispatch (dispatch.ts) moves outbox rows into deliveries in a transaction of its own. */
  transact: Transact<{ webhooks: WebhooksRepo }>;
  /** The tool calls' HTTP client: connect-time address policy, no redirects, its deadline and size caps. */
  http: Pick<ToolHttpClient, 'post'>;
  keys: KeyRing;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** Tells the owners when an endpoint is disabled; none: the disabling is only logged. */
  mailer?: Mailer | undefined;
  /** How long a claim holds a delivery: longer than the whole attempt can take (the HTTP deadline). */
  leaseMs: number;
  /** Jitter of the backoff; tests pass a fixed one. */
  random?: () => number;
  schedule?: Partial<DeliverySchedule>;
}

/** The message of the tool calls' client, said of a webhook endpoint. */
function reworded(message: string): string {
  return message.replace(/The tool's endpoint/g, 'The endpoint').replace(/the tool's endpoint/g, 'the endpoint').replace('Tools can only call public internet addresses', 'Webhooks can only reach public internet addresses');
}

/**
 * The start of an answer as text: bytes that are not UTF-8 become U+FFFD, and so does NUL, which a
 * PostgreSQL text column refuses (the attempt could then never be recorded, and would be sent again).
 */
function excerpt(body: Buffer): string {
  // eslint-disable-next-line no-control-regex
  return body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replace(/\u0000/g, '\uFFFD');
}

/**
 * Delivers pending webhook deliveries, on every node: polls for due ones (repo.claimDue: at most one in
 * flight per endpoint, oldest first, never one delivery on two nodes), POSTs each signed exactly like a
 * tool call plus X-Svc-Event and X-Svc-Delivery, and records the outcome (retries.ts decides what next).
 * An endpoint whose attempts have failed for 24 h straight is disabled and its owners emailed.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { repo, http, keys, clock, log } = deps;
  const random = deps.random ?? Math.random;
  const schedule = { ...DEFAULT_SCHEDULE, ...deps.schedule };
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;

  const leaseFrom = (now: Date) => new Date(now.getTime() + deps.leaseMs).toISOString();

  /** The exact bytes sent: `{id, type, createdAt, data}` with `data` as stored. */
  function bodyOf(delivery: ClaimedDelivery): Buffer {
    return Buffer.from(`{"id":${JSON.stringify(delivery.event_id)},"type":${JSON.stringify(delivery.type)},"createdAt":${JSON.stringify(delivery.event_created_at)},"data":${delivery.payload}}`);
  }

  async function send(delivery: ClaimedDelivery, body: Buffer): Promise<RawHttpOutcome> {
    let secret: string;
    try {
      secret = openSigningSecret(keys, delivery.endpoint_id, delivery.secret_sealed);
    } catch {
      return { ok: false, code: 'TOOL_CREDENTIALS_MISSING', message: 'The signing secret cannot be opened with SECRETS_KEY. Rotate the secret (POST /api/org/webhooks/{id}/secret). No request was sent.', durationMs: 0, requestBytes: body.length, responseBytes: 0 };
    }
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const headers = { ...signatureHeaders(secret, timestamp, body), [EVENT_HEADER]: delivery.type, [DELIVERY_HEADER]: delivery.id };
    return http.post({ method: 'POST', url: delivery.url, headers, body });
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const body = bodyOf(delivery);
    const outcome = await send(delivery, body);
    const now = clock.now();
    const at = now.toISOString();
    const verdict = judge(outcome, now);
    const attempts = delivery.attempts + 1;
    const changes: DeliveryChanges = {
      attempts,
      locked_until: null,
      last_status: outcome.ok ? outcome.status : null,
      last_duration_ms: outcome.durationMs,
      last_error: null,
      request_body: body.toString('utf8'),
      response_body: outcome.ok ? excerpt(outcome.body) : null,
      updated_at: at,
    };
    if (verdict.kind === 'succeeded') {
      Object.assign(changes, { status: 'succeeded', next_attempt_at: null, delivered_at: at });
    } else {
      const status = outcome.ok ? outcome.status : undefined;
      changes.last_error = outcome.ok
        ? status! >= 300 && status! < 400
          ? `The endpoint answered ${status}, a redirect. Redirects are not followed: change the webhook's URL to the final address.`
          : `The endpoint answered ${status}.`
        : reworded(outcome.message);
      const next = verdict.kind === 'retry' ? nextAttemptAt(verdict, attempts, delivery.created_at, now, random) : undefined;
      if (next) Object.assign(changes, { next_attempt_at: next.toISOString() });
      else {
        if (verdict.kind === 'retry') changes.last_error = `${changes.last_error} Gave up: retried for 24 hours.`;
        Object.assign(changes, { status: 'failed', next_attempt_at: null });
      }
    }
    // Only while still pending: a delivery settled meanwhile (its contact erased) keeps no body of this attempt.
    await repo.recordAttempt(delivery.id, changes);
    if (verdict.kind === 'succeeded') await repo.noteEndpointSuccess(delivery.endpoint_id);
    else await noteFailure(delivery, at, changes.last_error ?? '', verdict.kind === 'retry' && changes.status === 'failed');
  }

  /**
   * The endpoint has failed for 24 h straight when its failure streak (no success since) is 24 h old, or
   * when a delivery gave up after its 24 h of retries and the streak began when that delivery was queued
   * (its first attempt may come a moment after it was queued, so within a minute).
   */
  async function noteFailure(delivery: ClaimedDelivery, at: string, lastError: string, gaveUp: boolean): Promise<void> {
    const since = await repo.noteEndpointFailure(delivery.endpoint_id, at);
    if (since === undefined) return;
    const streakMs = Date.parse(at) - Date.parse(since);
    const wholeWindow = gaveUp && Date.parse(since) <= Date.parse(delivery.created_at) + 60_000;
    if (streakMs < RETRY_WINDOW_MS && !wholeWindow) return;
    const reason = `Every delivery failed for 24 hours (since ${since}). Last error: ${lastError}`;
    if (!(await repo.disableEndpoint(delivery.endpoint_id, reason, at))) return;
    log.warn({ webhookId: delivery.endpoint_id, orgId: delivery.org_id }, 'webhook endpoint disabled after 24 hours of failed deliveries');
    await tellOwners(delivery, reason);
  }

  async function tellOwners(delivery: ClaimedDelivery, reason: string): Promise<void> {
    if (!deps.mailer) return;
    const [owners, orgName] = await Promise.all([repo.ownerEmails(delivery.org_id), repo.orgName(delivery.org_id)]);
    for (const to of owners) {
      try {
        await deps.mailer.send({
          to,
          subject: `A webhook of ${orgName ?? 'your organization'} was disabled`,
          text: [
            `Switchboard stopped sending events to ${delivery.url} (webhook ${delivery.endpoint_id}).`,
            '',
            reason,
            '',
            'Fix the receiver, then enable the webhook again in the console or with',
            `PATCH /api/org/webhooks/${delivery.endpoint_id} {"enabled": true}. Deliveries still pending resume then.`,
          ].join('\n'),
        });
      } catch (error) {
        log.error({ err: error, webhookId: delivery.endpoint_id }, 'could not email an owner that a webhook was disabled');
      }
    }
  }

  const inFlight = new Set<Promise<void>>();
  /** Attempts in flight per endpoint. */
  const sending = new Map<string, number>();
  /** Endpoints whose attempt ended since the last claim: the next poll tells whether each had another one ready. */
  const ended = new Set<string>();

  /** Starts an attempt of each claimed delivery, each tracked on its own: when one ends, its endpoint's next may go. */
  async function startAll(ids: string[]): Promise<Promise<void>[]> {
    if (ids.length === 0) return [];
    const claimed = await repo.loadClaimed(ids);
    return claimed.map((delivery) => {
      const running = attempt(delivery).catch((error: unknown) => {
        // The lease runs out and another poll takes it again.
        // An outage is the database's (a warning, its reason); anything else is a bug of ours (an error, its stack).
        if (isDatabaseUnavailable(error)) log.warn({ ...failureFields(error), deliveryId: delivery.id }, 'webhook delivery could not be recorded');
        else log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery could not be recorded');
      });
      inFlight.add(running);
      sending.set(delivery.endpoint_id, (sending.get(delivery.endpoint_id) ?? 0) + 1);
      void running.finally(() => {
        inFlight.delete(running);
        const left = (sending.get(delivery.endpoint_id) ?? 1) - 1;
        if (left > 0) sending.set(delivery.endpoint_id, left);
        else sending.delete(delivery.endpoint_id);
        ended.add(delivery.endpoint_id);
        wake();
      });
      return running;
    });
  }

  /** The last dispatch's end (performance.now()) and length; the one running on this node, if any. */
  let lastDispatchEnd = Number.NEGATIVE_INFINITY;
  let lastDispatchMs = 0;
  let dispatching: Promise<number> | undefined;
  /** An endpoint ran dry since the last dispatch started (DISPATCH_SHARE); a new node assumes so. */
  let ranDry = true;

  /** Moves what the outbox holds into deliveries, one dispatch at a time on this node. */
  function dispatch(): Promise<number> {
    if (dispatching) return dispatching;
    const started = performance.now();
    ranDry = false;
    const running = dispatchOutbox(deps.transact).finally(() => {
      lastDispatchEnd = performance.now();
      lastDispatchMs = lastDispatchEnd - started;
      dispatching = undefined;
    });
    dispatching = running;
    return running;
  }

  /**
   * Beside the sending, never before it: starts a dispatch when its share of the time allows (DISPATCH_SHARE),
   * or at once when the worker has nothing to send (`starved`), and polls again when it moved rows (their heads
   * are due). Dispatching first on each poll put every dispatch between an attempt that ended and the next claim
   * of its endpoint: with a backlog, each delivery to one webhook waited for one (PostgreSQL: 5 deliveries a
   * second instead of 64 under the same load).
   */
  function dispatchBeside(starved: boolean): void {
    if (dispatching || stopped) return;
    if (!starved) {
      const share = ranDry ? DISPATCH_SHARE : DISPATCH_SHARE_FED;
      if (performance.now() < lastDispatchEnd + Math.max(DISPATCH_INTERVAL_MS, (lastDispatchMs * (1 - share)) / share)) return;
    }
    dispatch().then(
      (moved) => {
        if (moved > 0) wake();
      },
      (error: unknown) => log.warn(failureFields(error), 'webhook outbox dispatch failed; trying again'),
    );
  }

  /**
   * Claims what fits beside the attempts in flight and starts them, then dispatches beside them (when due);
   * resolves to how many it claimed (more may be waiting when it is not 0). `dispatchFirst` (tests, runOnce):
   * moves the outbox first and counts the rows moved too.
   */
  async function poll(options: { dispatchFirst?: boolean } = {}): Promise<number> {
    const dispatched = options.dispatchFirst ? await dispatch() : 0;
    const busy = inFlight.size;
    const room = schedule.batchSize - busy;
    // Endpoints whose attempt ended before this claim: each should have its next delivery claimed now.
    const finished = [...ended];
    ended.clear();
    let claimed = 0;
    if (room > 0) {
      const now = clock.now();
      const ids = await repo.claimDue(now.toISOString(), leaseFrom(now), room);
      // Rows that cannot be read now are taken again when their lease runs out.
      await startAll(ids).catch((error: unknown) => log.warn(failureFields(error), 'claimed webhook deliveries could not be loaded; their lease will run out'));
      // Fed: its next one is claimed now, or was by a poll that ran while its last attempt was being recorded.
      if (finished.some((endpointId) => !sending.has(endpointId))) ranDry = true;
      claimed = ids.length;
    }
    // Nothing to send: nothing claimed, and nothing was in flight when the claim ran (an attempt that ended
    // meanwhile was recorded after the claim looked: the poll it woke claims its endpoint's next).
    if (!options.dispatchFirst) dispatchBeside(claimed === 0 && busy === 0 && ended.size === 0);
    return dispatched + claimed;
  }

  /** One poll, then waits for every attempt in flight (tests; a node polls on its timer). */
  async function runOnce(): Promise<number> {
    const claimed = await poll({ dispatchFirst: true });
    await Promise.all(inFlight);
    return claimed;
  }

  /** Polls until nothing is due (tests). */
  async function runUntilIdle(maxRounds = 100): Promise<void> {
    for (let round = 0; round < maxRounds; round += 1) if ((await runOnce()) === 0) return;
  }

  /**
   * Sends one delivery now (the test ping): claims it unless a worker holds it, attempts, records.
   * `claimed`: the caller inserted it already holding the lease.
   */
  async function deliverNow(id: string, options: { claimed?: boolean } = {}): Promise<void> {
    const now = clock.now();
    if (options.claimed || (await repo.claimOne(id, now.toISOString(), leaseFrom(now)))) await Promise.all(await startAll([id]));
  }

  // ── The timer of a serving node ──
  let polling: Promise<unknown> | undefined;
  /**
   * A wake during a poll is kept for its end: dropped, an attempt that ended while the poll's claim ran left the
   * worker waiting a whole pollMs (1 s gaps between two deliveries to one webhook, 1–2 in 2,000 on PostgreSQL).
   */
  let wokenWhilePolling = false;

  function schedulePoll(ms: number): void {
    if (stopped || polling) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      wokenWhilePolling = false;
      const current = poll();
      polling = current;
      current.then(
        (claimed) => {
          polling = undefined;
          // Something was due: there may be more. Nothing: wait (an attempt that ends wakes it sooner), unless
          // one ended during this poll (its claim may have run before the attempt was recorded).
          schedulePoll(claimed > 0 || wokenWhilePolling ? 0 : schedule.pollMs);
        },
        (error: unknown) => {
          polling = undefined;
          log.warn(failureFields(error), 'webhook delivery poll failed; trying again');
          schedulePoll(schedule.pollMs);
        },
      );
    }, ms);
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (polling) wokenWhilePolling = true;
    else schedulePoll(0);
  }

  return {
    runOnce,
    runUntilIdle,
    deliverNow,
    /** Polls on a timer from now on (every node that serves). */
    start(): void {
      if (!stopped) return;
      stopped = false;
      schedulePoll(0);
    },
    /** No new poll; waits for the attempts in flight to be recorded and a dispatch running to end. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await polling?.catch(() => undefined);
      await dispatching?.catch(() => undefined);
      await Promise.all(inFlight);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
