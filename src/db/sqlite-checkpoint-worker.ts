import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointWorkerData, FromCheckpointWorker, ToCheckpointWorker } from './sqlite-checkpoint-protocol.js';

/**
 * The checkpointer's thread (started by sqlite-checkpointer.ts, which explains the why):
 * a connection of its own that runs PASSIVE checkpoints, and asks the main thread to
 * hold writes off once the log is long enough that it would not start over by itself.
 * A failure to open the database ends the thread with an error, which the main thread
 * reports before falling back to SQLite's own checkpoints.
 */
const port = parentPort!;
const options = workerData as CheckpointWorkerData;

interface CheckpointState {
  busy: number;
  /** Frames in the log. */
  log: number;
  /** Frames of it copied into the database file. */
  checkpointed: number;
}

function open(file: string): Database.Database {
  try {
    return new Database(file, { fileMustExist: true });
  } catch (error) {
    // Rethrown as a plain Error: better-sqlite3's own loses its message on the way to the main thread.
    throw new Error(`cannot open ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const db = open(options.file);
db.pragma('busy_timeout = 5000');

function send(message: FromCheckpointWorker): void {
  port.postMessage(message);
}

function checkpoint(): CheckpointState | undefined {
  try {
    return (db.pragma('wal_checkpoint(PASSIVE)') as CheckpointState[])[0];
  } catch {
    return undefined;
  }
}

let hold = 0;
let waitingForWriter = false;
let lastLog = -1;
// The log length a catch-up left fully copied: until a write restarts it, asking again would only stall writes.
let caughtUpLog = -1;
let delay = options.busyIntervalMs;
let timer: NodeJS.Timeout | undefined;

function tick(): void {
  const state = waitingForWriter ? undefined : checkpoint();
  if (state && state.log >= options.restartFrames && state.log !== caughtUpLog) {
    waitingForWriter = true;
    send({ type: 'hold-writes', hold: ++hold });
  }
  // Small, frequent checkpoints while writes come in (each one, and the final catch-up, stays short);
  // backing off to idleIntervalMs while nothing is written.
  const written = state !== undefined && state.log !== lastLog;
  if (state) lastLog = state.log;
  delay = written ? options.busyIntervalMs : Math.min(delay * 2, options.idleIntervalMs);
}

function scheduled(): void {
  tick();
  timer = setTimeout(scheduled, delay);
}

if (!options.manualTicks) timer = setTimeout(scheduled, delay);

port.on('message', (message: ToCheckpointWorker) => {
  switch (message.type) {
    case 'writes-held': {
      const state = checkpoint();
      if (state && state.checkpointed === state.log) caughtUpLog = state.log;
      waitingForWriter = false;
      send({ type: 'caught-up', hold: message.hold });
      return;
    }
    case 'tick':
      tick();
      send({ type: 'ticked', tick: message.tick });
      return;
    case 'stop':
      clearTimeout(timer);
      db.close();
      port.close();
      return;
  }
});
