/**
 * What the SQLite checkpointer (main thread, sqlite-checkpointer.ts) and its worker
 * (sqlite-checkpoint-worker.ts) tell each other. Types only: neither side loads the other.
 */

/** The worker's `workerData`. */
export interface CheckpointWorkerData {
  /** The database file; the worker opens its own connection to it (the file must exist). */
  file: string;
  /** Time between checkpoints while writes come in, and at most while none do. */
  busyIntervalMs: number;
  idleIntervalMs: number;
  /** Log length (in frames) past which the worker asks the writer to hold off. */
  restartFrames: number;
  /** No timers: the worker checkpoints only when sent `tick` (tests drive it step by step). */
  manualTicks: boolean;
}

/** Worker → main thread. */
export type FromCheckpointWorker =
  /** Please keep writes from starting on the main connection; `hold` numbers the request. */
  | { type: 'hold-writes'; hold: number }
  /** The log is copied: writes may go on. */
  | { type: 'caught-up'; hold: number }
  /** Answer to `tick`, sent after any `hold-writes` that checkpoint asked for. */
  | { type: 'ticked'; tick: number };

/** Main thread → worker. */
export type ToCheckpointWorker =
  /** No write can start until the worker says `caught-up` (or the main thread stops waiting). */
  | { type: 'writes-held'; hold: number }
  /** Checkpoint now, as a timer would; answered with `ticked`. */
  | { type: 'tick'; tick: number }
  /** Close the connection and end. */
  | { type: 'stop' };
