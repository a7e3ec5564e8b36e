import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints the SQLite WAL from a worker thread. A checkpoint copies committed pages
 * into the database file and syncs it; left to SQLite's autocheckpoint, that work lands
 * inside whichever request's commit crosses the threshold, on the event loop. A second
 * connection on its own thread does it instead (PASSIVE: it never blocks the writer),
 * and the main connection's autocheckpoint stays on, at a higher threshold, as a fallback.
 *
 * The worker is plain JavaScript evaluated in place, so it runs the same under tsx,
 * the compiled build and the test runner.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage({ error: String(error) }); }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, intervalMs = 250): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driverPath, intervalMs } });
  // The worker must never keep the process alive on its own.
  worker.unref();
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
