import { parentPort } from 'node:worker_threads';
import type { FromCheckpointWorker, ToCheckpointWorker } from '../../src/db/sqlite-checkpoint-protocol.js';

/**
 * A stand-in for the SQLite checkpoint worker that asks the writer to hold off and then
 * never says it has caught up, as a worker stuck in a checkpoint would (a stalled disk, say).
 */
const port = parentPort!;
port.postMessage({ type: 'hold-writes', hold: 1 } satisfies FromCheckpointWorker);
port.on('message', (message: ToCheckpointWorker) => {
  if (message.type === 'stop') port.close();
});
