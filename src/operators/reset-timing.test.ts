import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundQueue } from '../lib/background-queue.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createRecordingMailer } from '../../test/support/smtp.js';
import { startTimingClient, type TimingClient } from '../../test/support/timing-client.js';

/**
 * Whether an email has an account must not show in how long a reset request takes (issue 18, item 7).
 *
 * Measured as a client would: over a real socket, from a thread of its own (test/support/timing-client.ts),
 * one request at a time, 200 each of the known email, an unknown one, and the known one again — what
 * noise alone makes of two identical series. The known-vs-unknown gap of the medians may exceed the
 * known-vs-known one by at most 0.3 ms.
 *
 * Robust on a loaded machine: a warm-up first (JIT, statement caches); each triple in a random order,
 * so every series is as often first and as often right after each other one; the work a request
 * leaves for after its answer is run and waited for between requests, outside the measure (see
 * heldQueue); and a verdict that fails is taken again on a further 200 of each, pooled with the
 * first (up to ROUNDS): a gap made by noise shrinks as samples are added, and a real one does not.
 * Not toothless: the code before the fix (the lookup, the reset row and the email composed on the
 * path) failed every verdict of twelve, with gaps of 0.77 to 2.23 ms against known-vs-known gaps under
 * 0.25 ms (SQLite and PostgreSQL, load averages 4 to 10 on two cores); the fixed code shows -0.02 and
 * 0.03 ms against -0.02 and -0.01 ms.
 */

const SAMPLES = 200;
const WARM_UP = 60;
/** How far the known-vs-unknown gap may exceed the known-vs-known one (the bound). */
const TOLERANCE_MS = 0.3;
const ROUNDS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const ms3 = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The app's background queue, holding its jobs until the test runs them. In production a job starts
 * once the answer is written to the socket, and a client elsewhere has it whatever the server does
 * next; here the client shares the machine's two cores with the server, so a job running while
 * it reads would be counted in the request's time. Holding jobs until the client has the answer
 * measures what a client elsewhere sees. `idle()` runs what is held.
 */
function heldQueue(): BackgroundQueue {
  const held: Array<() => Promise<void>> = [];
  return {
    push: (_what, job) => void held.push(job),
    idle: async () => {
      while (held.length > 0) await held.shift()!();
    },
    size: () => held.length,
  };
}

interface Samples {
  known: number[];
  unknown: number[];
  knownAgain: number[];
}

describe.each(testDialects())('password-reset request timing on %s', (dialect) => {
  let t: TestContext;
  let base: string;
  let client: TimingClient;
  const mailer = createRecordingMailer();
  const knownEmail = 'timing-owner@example.com';
  const unknownEmail = 'timing-nobody@example.com';

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { mailer, background: heldQueue() } });
    const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: knownEmail, password: 'violet kettle marathon', name: 'Olive', organizationName: 'Olive Plumbing' } });
    expect(signup.statusCode).toBe(201);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = await startTimingClient();
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  /** One request's time, from sending it to the last byte of its answer. */
  async function timeRequest(email: string): Promise<number> {
    const res = await client.post(`${base}/api/auth/password-reset`, { email });
    expect(res.status, res.body).toBe(202);
    await t.background.idle();
    // Let what the job set going wind down before the next request.
    await new Promise((resolve) => setTimeout(resolve, 2));
    // Past every reset limit's window (5 an hour per email, 10 per 15 minutes per address): each request is answered in full.
    t.clock.advance(61 * 60_000);
    return res.ms;
  }

  async function measure(samples: number, into: Samples): Promise<void> {
    const series: Array<[keyof Samples, string]> = [['known', knownEmail], ['unknown', unknownEmail], ['knownAgain', knownEmail]];
    for (let i = 0; i < samples; i++) {
      for (const [name, email] of shuffled(series)) into[name].push(await timeRequest(email));
    }
  }

  it('answers an unknown email as fast as a known one, and emails only the known one', async ({ annotate }) => {
    await measure(WARM_UP, { known: [], unknown: [], knownAgain: [] });
    const pooled: Samples = { known: [], unknown: [], knownAgain: [] };
    const verdicts = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const mailed = mailer.sent.length;
      await measure(SAMPLES, pooled);
      // Every known request got its email and no unknown one did: the measure compared the two cases it means to.
      const mails = mailer.sent.slice(mailed);
      expect(mails.length).toBe(SAMPLES * 2);
      expect(mails.every((mail) => mail.to.join() === knownEmail)).toBe(true);
      const medians = { known: median(pooled.known), unknown: median(pooled.unknown), knownAgain: median(pooled.knownAgain) };
      const verdict = {
        dialect,
        samplesEach: pooled.known.length,
        mediansMs: { known: ms3(medians.known), unknown: ms3(medians.unknown), knownAgain: ms3(medians.knownAgain) },
        knownMinusUnknownMs: ms3(medians.known - medians.unknown),
        knownMinusKnownMs: ms3(medians.known - medians.knownAgain),
      };
      verdicts.push(verdict);
      // The figures, in the test's report (vitest prints annotations with the test).
      await annotate(`reset timing ${JSON.stringify(verdict)}`);
      if (Math.abs(verdict.knownMinusUnknownMs) <= Math.abs(verdict.knownMinusKnownMs) + TOLERANCE_MS) break;
    }
    const last = verdicts.at(-1)!;
    expect(Math.abs(last.knownMinusUnknownMs), JSON.stringify(verdicts)).toBeLessThanOrEqual(Math.abs(last.knownMinusKnownMs) + TOLERANCE_MS);
  }, 300_000);
});
