import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted model provider on 127.0.0.1 (plain http, as a local model server serves: the test app
 * runs with MODEL_ALLOW_PRIVATE_ENDPOINTS=1). It speaks the real wire formats — OpenAI Chat
 * Completions and Anthropic Messages, each as one JSON answer or, when the request says `stream: true`, as
 * the provider's Server-Sent Events (Chat Completions chunks; Anthropic's message_start, content_block_*,
 * message_delta and message_stop) — answering each request with the next scripted turn, and records every request (path,
 * headers, body as sent) so a test can see exactly what the model was given.
 */

export interface ModelRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export type ScriptedCall = { id: string; name: string; arguments: string };
/** One model answer: text and/or tool calls, or an HTTP error, or never answering. */
export type Scripted =
  | { text?: string; toolCalls?: ScriptedCall[]; usage?: { input: number; output: number }; /** Streamed: send the text, then hold the stream open. */ hold?: true; /** Answer only after this long. */ delayMs?: number }
  | { status: number; error: string; headers?: Record<string, string> }
  /** A 200 whose JSON body is this text as it is (an answer JSON.stringify could not even write). */
  | { body: string }
  | { hang: true };

export interface ScriptedModel {
  /** http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  requests: ModelRequest[];
  /** Connections the client closed while the server was still holding a streamed answer open. */
  readonly abandoned: number;
  /** The answers to the next requests, in order (a request past the script is a 500). */
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

function openAiMessage(answer: Extract<Scripted, { text?: string }>) {
  const calls = answer.toolCalls ?? [];
  return {
    id: 'chatcmpl-scripted', object: 'chat.completion', created: 1_764_000_000, model: 'gpt-scripted',
    choices: [{
      index: 0,
      message: { role: 'assistant', content: answer.text ?? null, ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}) },
      finish_reason: calls.length ? 'tool_calls' : 'stop',
    }],
    usage: { prompt_tokens: answer.usage?.input ?? 10, completion_tokens: answer.usage?.output ?? 5, total_tokens: (answer.usage?.input ?? 10) + (answer.usage?.output ?? 5) },
  };
}

/** The same answer as Chat Completions chunks: text in pieces, each call's arguments in two pieces, then usage and [DONE]. */
function openAiChunks(answer: Extract<Scripted, { text?: string }>): string[] {
  const chunk = (delta: unknown, finish: string | null = null) => ({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'gpt-scripted', choices: [{ index: 0, delta, finish_reason: finish }] });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const text = answer.text ?? '';
  for (let i = 0; i < text.length; i += 4) out.push(chunk({ content: text.slice(i, i + 4) }));
  (answer.toolCalls ?? []).forEach((call, index) => {
    const half = Math.floor(call.arguments.length / 2);
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }));
  });
  out.push(chunk({}, answer.toolCalls?.length ? 'tool_calls' : 'stop'));
  out.push({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'gpt-scripted', choices: [], usage: { prompt_tokens: answer.usage?.input ?? 10, completion_tokens: answer.usage?.output ?? 5, total_tokens: 15 } });
  return [...out.map((value) => `data: ${JSON.stringify(value)}\n\n`), 'data: [DONE]\n\n'];
}

function anthropicMessage(answer: Extract<Scripted, { text?: string }>) {
  const calls = answer.toolCalls ?? [];
  return {
    id: 'msg_scripted', type: 'message', role: 'assistant', model: 'claude-scripted',
    content: [
      ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
      ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) })),
    ],
    stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: answer.usage?.input ?? 10, output_tokens: answer.usage?.output ?? 5 },
  };
}

/**
 * The same answer as Anthropic Messages streaming events: message_start (input tokens), a text block in
 * pieces of four characters, each tool_use block with its input in two input_json_delta pieces, then
 * message_delta (stop reason, output tokens) and message_stop. `textOnly`: up to the last text delta.
 */
function anthropicEvents(answer: Extract<Scripted, { text?: string }>, textOnly = false): string[] {
  const out: Array<Record<string, unknown>> = [{
    type: 'message_start',
    message: { id: 'msg_scripted', type: 'message', role: 'assistant', model: 'claude-scripted', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: answer.usage?.input ?? 10, output_tokens: 1 } },
  }];
  let index = 0;
  const text = answer.text ?? '';
  if (text !== '') {
    out.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, { type: 'ping' });
    for (let i = 0; i < text.length; i += 4) out.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(i, i + 4) } });
    if (textOnly) return out.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
    out.push({ type: 'content_block_stop', index });
    index++;
  }
  for (const call of answer.toolCalls ?? []) {
    const half = Math.floor(call.arguments.length / 2);
    out.push(
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } },
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(0, half) } },
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(half) } },
      { type: 'content_block_stop', index },
    );
    index++;
  }
  out.push(
    { type: 'message_delta', delta: { stop_reason: answer.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: answer.usage?.output ?? 5 } },
    { type: 'message_stop' },
  );
  return out.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  let queue: Scripted[] = [];
  let abandoned = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try { json = JSON.parse(body); } catch { /* recorded as text */ }
      requests.push({ path: request.url ?? '', headers: request.headers, body, json });
      const answer = queue.shift();
      if (!answer) return send(response, 500, { error: { message: 'The script has no answer for this request.' } });
      if ('hang' in answer) return;
      if ('body' in answer) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.body) });
        return response.end(answer.body);
      }
      if ('status' in answer) {
        const anthropic = request.url?.endsWith('/messages');
        return send(response, answer.status, anthropic ? { type: 'error', error: { type: 'api_error', message: answer.error } } : { error: { message: answer.error, type: 'invalid_request_error', code: null } }, answer.headers);
      }
      if ('delayMs' in answer && answer.delayMs) {
        setTimeout(() => respond(answer, json), answer.delayMs);
        return;
      }
      respond(answer, json);
    });

    function respond(answer: Extract<Scripted, { text?: string }>, json: any): void {
      const anthropic = request.url?.endsWith('/messages') === true;
      if (json?.stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        if (answer.hold) {
          // The text only: no end of the block or message, no usage; the client's closing is counted.
          for (const event of anthropic ? anthropicEvents(answer, true) : openAiChunks(answer).slice(0, -3)) response.write(event);
          response.once('close', () => { abandoned++; });
          return;
        }
        for (const event of anthropic ? anthropicEvents(answer) : openAiChunks(answer)) response.write(event);
        response.end();
        return;
      }
      if (anthropic) return send(response, 200, anthropicMessage(answer));
      send(response, 200, openAiMessage(answer));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get abandoned() { return abandoned; },
    script: (...answers) => { queue = answers; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
