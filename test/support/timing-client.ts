import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export interface TimedResponse {
  status: number;
  body: string;
  /** From just before the request is sent to the last byte of the body read, in milliseconds. */
  ms: number;
}

/**
 * An HTTP client on a thread of its own, timing requests as a client outside the server would.
 * A client on the server's own thread shares its event loop: whatever the server does after
 * answering (a background job) would delay the client's reading of the answer and be counted as
 * the request's time, which no outside client sees. Keep-alive connections, like a probing script.
 */
export interface TimingClient {
  post(url: string, json: unknown): Promise<TimedResponse>;
  close(): Promise<void>;
}

const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ url, body }) => {
  try {
    const start = process.hrtime.bigint();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    parentPort.postMessage({ status: res.status, body: text, ms });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
});`;

export async function startTimingClient(): Promise<TimingClient> {
  const worker = new Worker(WORKER, { eval: true });
  await once(worker, 'online');
  return {
    async post(url, json) {
      const [reply] = (await Promise.all([once(worker, 'message'), worker.postMessage({ url, body: JSON.stringify(json) })]))[0] as [TimedResponse & { error?: string }];
      if (reply.error !== undefined) throw new Error(reply.error);
      return reply;
    },
    close: async () => void (await worker.terminate()),
  };
}
