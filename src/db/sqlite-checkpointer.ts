import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CheckpointWorkerData, FromCheckpointWorker, ToCheckpointWorker } from './sqlite-checkpoint-protocol.js';

/**
 * Checkpoints the SQLite WAL from a worker thread (sqlite-checkpoint-worker.ts). A
 * checkpoint copies committed pages into the database file and syncs it; left to
 * SQLite's autocheckpoint, that work lands inside whichever request's commit crosses
 * the threshold, on the event loop. A second connection on its own thread does it
 * instead (PASSIVE: it never blocks the writer), and the main connection's
 * autocheckpoint stays on, at twice the restart point, as a fallback.
 *
 * Passive checkpoints alone are not enough under a steady stream of writes. The log
 * only starts over from its beginning when a write begins after a checkpoint has
 * copied every frame and before anything else was committed; with a commit every few
 * milliseconds that almost never happens by chance, so the log grows until the
 * fallback fires, and then a commit on the event loop copies tens of megabytes (tens
 * of milliseconds during which no request is served). So once the log passes
 * `restartFrames`, the worker asks the writer to hold off: the main thread takes the
 * connection's lock (queries wait their turn, without blocking the event loop), the
 * worker copies the frames since its last checkpoint, and the lock is released. The
 * next write then starts the log over. The hold is bounded (`holdLimitMs`): a worker
 * that does not catch up in time gets no more of the writer's time.
 *
 * If the worker fails (it cannot open the database, it throws, it exits), the failure
 * is logged once, any hold is released, and the main connection goes back to SQLite's
 * own autocheckpoint at its usual threshold: slower commits now and then, but the
 * database keeps serving.
 */

/**
 * How long the WAL may grow (4 KB frames, so 32 MB) before the checkpointer has the writer
 * hold off so the log can start over. Each restart pauses writes for one catch-up (around
 * 10 ms under load): at a few thousand submissions a second, 2,000 frames meant a dozen
 * pauses a second, 8,000 about two. The main connection's own autocheckpoint stays at
 * twice this, should the worker fall behind.
 */
export const WAL_RESTART_FRAMES = 8000;

/** SQLite's default `wal_autocheckpoint`: where the main connection goes back to if the worker fails. */
export const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

/** Where the checkpointer reports trouble: a pino logger fits. */
export interface CheckpointerLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** For callers without a logger (CLI commands, tests): one line on stderr. */
export const consoleLog: CheckpointerLog = {
  warn: (details, message) => console.warn(`switchboard: ${message}`, details),
  error: (details, message) => console.error(`switchboard: ${message}`, details),
};

export interface Checkpointer {
  /** One checkpoint now, as the worker's timer would do; resolves once done (any hold it asked for is under way). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Resolves once no write can start on the main connection; calling the returned function lets writes go on. */
  holdWrites(): Promise<() => void>;
  /** Sets the main connection's `wal_autocheckpoint`, in frames (called once at start, and again if the worker fails). */
  setAutocheckpoint(frames: number): void;
  log: CheckpointerLog;
  /** Time between checkpoints while writes come in (default 10 ms) and at most while none do (default 250 ms). */
  busyIntervalMs?: number;
  idleIntervalMs?: number;
  /** Log length (in 4 KB frames) past which the worker asks for writes to pause so the log can start over (default WAL_RESTART_FRAMES). */
  restartFrames?: number;
  /** The longest writes stay held for the worker (default 1 s); past it they go on, and the overrun is logged. */
  holdLimitMs?: number;
  /** No timers: the worker checkpoints only on `tick()`, so tests can drive it step by step. */
  manualTicks?: boolean;
  /** The worker module (default: sqlite-checkpoint-worker.js beside this file); tests pass stand-ins that misbehave. */
  workerUrl?: URL;
}

/**
 * How to start a worker module. The compiled build has the `.js` file. Run from source
 * (tsx, vitest) only the `.ts` file exists; on Node 20 a worker thread does not get tsx's
 * hooks from its parent (tsx registers them on the main thread only), so the worker
 * registers them itself, through `--import`, before its module loads.
 */
function workerEntry(url: URL): { url: URL; execArgv?: string[] } {
  const source = new URL(url.href.replace(/\.js$/, '.ts'));
  // Neither there (a broken build): the worker fails to start, which is handled like any failure of it.
  if (existsSync(url) || !existsSync(source)) return { url };
  let tsx: string;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return { url: source };
  }
  const register = `import { register } from ${JSON.stringify(tsx)}; register();`;
  return { url: source, execArgv: [...process.execArgv, '--import', `data:text/javascript,${encodeURIComponent(register)}`] };
}

export function startCheckpointer(file: string, options: CheckpointerOptions): Checkpointer {
  const { log } = options;
  const restartFrames = options.restartFrames ?? WAL_RESTART_FRAMES;
  const holdLimitMs = options.holdLimitMs ?? 1000;
  options.setAutocheckpoint(2 * restartFrames);

  const workerData: CheckpointWorkerData = {
    file,
    busyIntervalMs: options.busyIntervalMs ?? 10,
    idleIntervalMs: options.idleIntervalMs ?? 250,
    restartFrames,
    manualTicks: options.manualTicks ?? false,
  };
  const entry = workerEntry(options.workerUrl ?? new URL('./sqlite-checkpoint-worker.js', import.meta.url));
  const worker = new Worker(entry.url, { workerData, ...(entry.execArgv ? { execArgv: entry.execArgv } : {}) });
  // The worker must never keep the process alive on its own.
  worker.unref();
  const send = (message: ToCheckpointWorker) => worker.postMessage(message);

  let running = true;
  let stopping = false;
  let failed = false;
  let held: { hold: number; letGo: () => void; limit: NodeJS.Timeout } | undefined;
  const ticks = new Map<number, { resolve(): void; reject(error: Error): void }>();
  let lastTick = 0;

  const letWritesGo = () => {
    if (!held) return;
    clearTimeout(held.limit);
    const { letGo } = held;
    held = undefined;
    letGo();
  };

  function fail(details: object, message: string): void {
    if (failed || stopping) return;
    failed = true;
    letWritesGo();
    log.error({ file, worker: entry.url.href, ...details }, `${message}; SQLite checkpoints the log itself from now on`);
    // Back to SQLite's own checkpoints at their usual threshold, set between two queries.
    void options.holdWrites().then((letGo) => {
      try {
        options.setAutocheckpoint(SQLITE_DEFAULT_AUTOCHECKPOINT);
      } catch {
        // The connection closed meanwhile: nothing is left to checkpoint.
      } finally {
        letGo();
      }
    });
  }

  worker.on('message', (message: FromCheckpointWorker) => {
    switch (message.type) {
      case 'hold-writes':
        void options.holdWrites().then((letGo) => {
          // Writes never stay held for a worker that has gone.
          if (!running || stopping) return letGo();
          const limit = setTimeout(() => {
            letWritesGo();
            log.warn({ file, holdLimitMs }, 'SQLite checkpointer: the worker did not catch up within the hold limit; writes go on');
          }, holdLimitMs);
          limit.unref();
          held = { hold: message.hold, letGo, limit };
          send({ type: 'writes-held', hold: message.hold });
        });
        return;
      case 'caught-up':
        // A hold the limit already ended has nothing left to release.
        if (held?.hold === message.hold) letWritesGo();
        return;
      case 'ticked':
        ticks.get(message.tick)?.resolve();
        ticks.delete(message.tick);
        return;
    }
  });
  worker.on('error', (error) => fail({ err: error }, 'SQLite checkpoint worker failed'));
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (exitCode) => {
      running = false;
      letWritesGo();
      for (const tick of ticks.values()) tick.reject(new Error('the SQLite checkpoint worker has exited'));
      ticks.clear();
      fail({ exitCode }, 'SQLite checkpoint worker exited');
      resolve();
    });
  });

  let stopped: Promise<void> | undefined;
  return {
    tick: () => {
      if (!running) return Promise.reject(new Error('the SQLite checkpoint worker is not running'));
      return new Promise<void>((resolve, reject) => {
        const tick = ++lastTick;
        ticks.set(tick, { resolve, reject });
        send({ type: 'tick', tick });
      });
    },
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        if (!running) return;
        // Held until it has closed its connection, or the process could end mid-stop.
        worker.ref();
        send({ type: 'stop' });
        const kill = setTimeout(() => void worker.terminate(), 2000);
        await exited;
        clearTimeout(kill);
      })()),
  };
}
