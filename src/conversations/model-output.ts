import type { LanguageModelMiddleware } from 'ai';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../lib/json.js';

/**
 * Model output is input (issue 32). A model provider is the outside world: its base URL is an operator's
 * choice, and a model can be talked into anything. What it returns goes through the same limits as a request
 * body before the AI SDK or anything of ours reads it:
 *
 * - **Tool-call arguments**: at most MAX_TOOL_ARGUMENTS_BYTES of JSON text, nested at most MAX_JSON_DEPTH
 *   levels (the request bodies' limit, checked on the text without recursion: lib/json.ts). Arguments past a
 *   limit never reach the SDK's parser, the invoker or the transcript: the call's input is replaced by `{}` and
 *   its id recorded (`violations`): loop.ts answers it without running it, and the model gets an
 *   `INVALID_ARGUMENTS` result in our words to recover from. Measured before: arguments nested 5,000 deep passed
 *   JSON.parse and then overflowed the stack in the SDK's structuredClone and JSON.stringify of the step,
 *   failing the whole turn with "Maximum call stack size exceeded".
 * - **Text**: the rule for stored text (lib/text.ts): no control characters but tab and line breaks
 *   (PostgreSQL refuses NUL, so one NUL made a turn unsavable), no lone UTF-16 surrogate (replaced by U+FFFD,
 *   as a decoder would). A model request's text is cut at MAX_STEP_TEXT_CHARS.
 * - **Usage**: token counts are integers from 0 to MAX_STEP_TOKENS (loop.ts `tokenCount`), whatever the provider says.
 */

/** The Operator API's tool-call body limit (invocation/routes.ts), for the arguments alone. */
export const MAX_TOOL_ARGUMENTS_BYTES = 128 * 1024;
/**
 * The most text one model request may answer with. Far above what models write in one answer (a 16k-token
 * answer is about 64,000 characters), low enough that a provider streaming without end cannot fill memory.
 */
export const MAX_STEP_TEXT_CHARS = 200_000;
/**
 * Token counts past this are a provider's error, not a model request's usage (the largest contexts offered are
 * 1–2 million tokens). Low enough that a conversation's totals, integers of 32 bits, cannot overflow: at most
 * MAX_MESSAGES (200) plus one turn's 33 model requests, × 5,000,000 = 1.2 × 10⁹ < 2³¹.
 */
export const MAX_STEP_TOKENS = 5_000_000;

/** Why a call's arguments were withheld, in words the model (and the transcript) can read. */
export function argumentsProblem(input: string): string | undefined {
  if (Buffer.byteLength(input, 'utf8') > MAX_TOOL_ARGUMENTS_BYTES) {
    return `The arguments are larger than ${MAX_TOOL_ARGUMENTS_BYTES / 1024} KB. Call the tool again with smaller arguments.`;
  }
  if (jsonTooDeep(input) !== undefined) {
    return `The arguments nest objects or arrays more than ${MAX_JSON_DEPTH} levels deep. Call the tool again with flatter arguments.`;
  }
  return undefined;
}

/**
 * What replaces withheld arguments: an empty object, which every reader takes. The call itself is answered by
 * loop.ts from `violations` (INVALID_ARGUMENTS, handed to the model as any failed call's result), never run.
 */
const WITHHELD = '{}';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const PLAIN = /^[\u0020-\u007E\n\r\t]*$/;

/** The text with control characters removed and lone surrogates replaced: what can be stored and shown as it is. */
export function storableText(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The middleware (AI SDK `wrapLanguageModel`) that applies the limits above to every model request of one
 * turn. `violations` collects, by tool call id, why a call's arguments were withheld (loop.ts reads it).
 */
export function modelOutputLimits(violations: Map<string, string>): LanguageModelMiddleware {
  const checkCall = <Call extends { toolCallId: string; input: string }>(call: Call): Call => {
    const problem = argumentsProblem(call.input);
    if (problem === undefined) return call;
    violations.set(call.toolCallId, problem);
    return { ...call, input: WITHHELD };
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate();
      let left = MAX_STEP_TEXT_CHARS;
      const content = result.content.map((part) => {
        if (part.type === 'tool-call') return checkCall(part);
        if (part.type !== 'text') return part;
        const text = storableText(part.text).slice(0, Math.max(0, left));
        left -= text.length;
        return { ...part, text };
      });
      return { ...result, content };
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      let left = MAX_STEP_TEXT_CHARS;
      // A high surrogate that ended a delta waits for the low one that starts the next (one pair, two chunks).
      const held = new Map<string, string>();
      type Part = typeof stream extends ReadableStream<infer P> ? P : never;
      const limited = stream.pipeThrough(new TransformStream<Part, Part>({
        transform(part, controller) {
          if (part.type === 'tool-call') return controller.enqueue(checkCall(part));
          if (part.type === 'text-end' && held.has(part.id)) {
            // A high surrogate nothing followed is a lone one.
            if (left > 0) controller.enqueue({ type: 'text-delta', id: part.id, delta: '\uFFFD' });
            held.delete(part.id);
          }
          if (part.type !== 'text-delta') return controller.enqueue(part);
          let delta = (held.get(part.id) ?? '') + part.delta;
          held.delete(part.id);
          const last = delta.charCodeAt(delta.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            held.set(part.id, delta.slice(-1));
            delta = delta.slice(0, -1);
          }
          delta = storableText(delta).slice(0, Math.max(0, left));
          left -= delta.length;
          if (delta !== '') controller.enqueue({ ...part, delta });
        },
      }));
      return { stream: limited, ...rest };
    },
  };
}
