/**
 * The hand-off deadline worker (issue 35), on every node that serves: every few seconds, waiting conversations
 * past their deadline go back to their agent (handoff.ts expireOverdue; each claimed by a conditional update, so
 * two nodes never both move one). One pass at a time; `stop` waits for the pass under way.
 */

export interface DeadlineSchedule {
  /** How often a pass runs: a deadline is kept within this much (waits are 30 s at least). Default 5 s. */
  intervalMs: number;
}

export function createDeadlineWorker(deps: {
  expire: () => Promise<number>;
  log: { warn(object: object, message: string): void };
  schedule?: Partial<DeadlineSchedule> | undefined;
}) {
  const intervalMs = deps.schedule?.intervalMs ?? 5000;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;

  /** One pass now (tests call it with a moved clock); a pass already under way is waited for instead. */
  function pass(): Promise<void> {
    running ??= deps.expire().then(
      () => undefined,
      (error: unknown) => deps.log.warn({ err: error }, 'the hand-off deadline pass failed; the next one tries again'),
    ).finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    start(): void {
      timer ??= setInterval(() => void pass(), intervalMs).unref();
    },
    pass,
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export type DeadlineWorker = ReturnType<typeof createDeadlineWorker>;
