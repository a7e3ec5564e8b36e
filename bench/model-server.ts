import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The conversations benchmark's model provider on 127.0.0.1: OpenAI Chat Completions, streamed, as
 * fast as a local server can answer. Stateless: the plan is in the user's message, `rounds=<n>
 * chunks=<n> delay=<ms>` — answer with a tool call (`shipping_quote`) while the request holds fewer
 * than `rounds` tool results after the last user message, then stream the text in `chunks` pieces,
 * `delay` ms apart. Every request's arrival and every answer's end is stamped (performance.now(),
 * this process), so a sequential run can tell Switchboard's own time from the model's and the tool's.
 */

export interface ModelStamp {
  kind: 'request' | 'answered';
  at: number;
  /** For `answered`: the answer asked for a tool. */
  toolCall?: boolean;
}

export interface BenchModel {
  /** http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  stamps: ModelStamp[];
  /** Streams open at once, at most, since the last reset. */
  peakOpen: number;
  resetPeak(): void;
  close(): Promise<void>;
}

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'bench', choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } })}\n\n`;

interface Plan { rounds: number; chunks: number; delay: number }

function planOf(messages: Array<{ role: string; content?: unknown }>): Plan & { toolResults: number } {
  let lastUser = -1;
  messages.forEach((message, index) => { if (message.role === 'user') lastUser = index; });
  const text = typeof messages[lastUser]?.content === 'string' ? (messages[lastUser]!.content as string) : '';
  const number = (name: string, fallback: number) => Number(new RegExp(`${name}=(\\d+)`).exec(text)?.[1] ?? fallback);
  return {
    rounds: number('rounds', 0), chunks: number('chunks', 4), delay: number('delay', 0),
    toolResults: messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length,
  };
}

export async function startBenchModel(): Promise<BenchModel> {
  const stamps: ModelStamp[] = [];
  let open = 0;
  let peakOpen = 0;

  async function answer(request: IncomingMessage, response: ServerResponse) {
    let body = '';
    for await (const piece of request) body += piece;
    stamps.push({ kind: 'request', at: performance.now() });
    const plan = planOf((JSON.parse(body) as { messages: Array<{ role: string; content?: unknown }> }).messages);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (plan.toolResults < plan.rounds) {
      const args = JSON.stringify({ weightKg: 2.5, country: 'PT' });
      response.end(
        chunk({ role: 'assistant', content: null }) +
        chunk({ tool_calls: [{ index: 0, id: `call_bench_${plan.toolResults}`, type: 'function', function: { name: 'shipping_quote', arguments: args } }] }) +
        chunk({}, 'tool_calls') + usage + 'data: [DONE]\n\n',
      );
      stamps.push({ kind: 'answered', at: performance.now(), toolCall: true });
      return;
    }
    open++;
    peakOpen = Math.max(peakOpen, open);
    try {
      response.write(chunk({ role: 'assistant', content: '' }));
      for (let i = 0; i < plan.chunks; i++) {
        if (i > 0 && plan.delay > 0) await new Promise((resolve) => setTimeout(resolve, plan.delay));
        if (response.destroyed) return;
        response.write(chunk({ content: `word${i} ` }));
      }
      response.end(chunk({}, 'stop') + usage + 'data: [DONE]\n\n');
      stamps.push({ kind: 'answered', at: performance.now(), toolCall: false });
    } finally {
      open--;
    }
  }

  const server: Server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  // 1,000 concurrent streams: the default backlog (511) is enough once accepted, but bursts queue.
  server.maxConnections = 5000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 2048 }, resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    stamps,
    get peakOpen() { return peakOpen; },
    resetPeak: () => { peakOpen = open; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
