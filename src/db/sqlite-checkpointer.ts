import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints the SQLite WAL from a worker thread. A checkpoint copies committed pages
 * into the database file and syncs it; left to SQLite's autocheckpoint, that work lands
 * inside whichever request's commit crosses the threshold, on the event loop. A second
 * connection on its own thread does it instead (PASSIVE: it never blocks the writer),
 * and the main connection's autocheckpoint stays on, at a higher threshold, as a fallback.
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
 * next write then starts the log over.
 *
 * The worker is plain JavaScript evaluated in place, so it runs the same under tsx,
 * the compiled build and the test runner.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
let waitingForWriter = false;
let lastLog = -1;
// The log length a catch-up left fully copied: until a write restarts it, asking again would only stall writes.
let caughtUpLog = -1;
let delay = workerData.busyIntervalMs;
let timer;
function checkpoint() {
  try {
    return db.pragma('wal_checkpoint(PASSIVE)')[0];
  } catch {
    return undefined;
  }
}
function tick() {
  const state = waitingForWriter ? undefined : checkpoint();
  if (state && state.log >= workerData.restartFrames && state.log !== caughtUpLog) {
    waitingForWriter = true;
    parentPort.postMessage('hold-writes');
  }
  // Small, frequent checkpoints while writes come in (each one, and the final catch-up, stays short);
  // backing off to idleIntervalMs while nothing is written.
  const written = state !== undefined && state.log !== lastLog;
  if (state) lastLog = state.log;
  delay = written ? workerData.busyIntervalMs : Math.min(delay * 2, workerData.idleIntervalMs);
  timer = setTimeout(tick, delay);
}
timer = setTimeout(tick, delay);
parentPort.on('message', (message) => {
  if (message === 'writes-held') {
    const state = checkpoint();
    if (state && state.checkpointed === state.log) caughtUpLog = state.log;
    waitingForWriter = false;
    parentPort.postMessage('caught-up');
  } else if (message === 'stop') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Resolves once no write can start on the main connection; calling the returned function lets writes go on. */
  holdWrites(): Promise<() => void>;
  /** Time between checkpoints while writes come in (default 10 ms) and at most while none do (default 250 ms). */
  busyIntervalMs?: number;
  idleIntervalMs?: number;
  /** Log length (in 4 KB frames) past which the worker asks for writes to pause so the log can start over (default 8,000). */
  restartFrames?: number;
}

export function startCheckpointer(file: string, options: CheckpointerOptions): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = {
    file,
    driverPath,
    busyIntervalMs: options.busyIntervalMs ?? 10,
    idleIntervalMs: options.idleIntervalMs ?? 250,
    restartFrames: options.restartFrames ?? 8000,
  };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // The worker must never keep the process alive on its own.
  worker.unref();
  let release: (() => void) | undefined;
  let exited = false;
  const letWritesGo = () => {
    release?.();
    release = undefined;
  };
  worker.on('message', (message) => {
    if (message === 'hold-writes') {
      void options.holdWrites().then((letGo) => {
        // Writes never stay held for a worker that has gone.
        if (exited) return letGo();
        release = letGo;
        worker.postMessage('writes-held');
      });
    } else if (message === 'caught-up') {
      letWritesGo();
    }
  });
  worker.once('exit', () => {
    exited = true;
    letWritesGo();
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        // Held until it has closed its connection, or the process could end mid-stop.
        worker.ref();
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 2000).unref();
      })),
  };
}
