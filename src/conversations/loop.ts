import { generateText, InvalidToolInputError, jsonSchema, NoSuchToolError, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import type { ExportedTool } from '../../web/tools/export.js';
import { isAppError } from '../http/errors.js';
import type { Invoker } from '../invocation/invoker.js';
import type { ProviderModel } from './model-client.js';
import { MAX_STEP_TOKENS, modelOutputLimits } from './model-output.js';

/**
 * One turn of the model loop: the history, the instructions and the agent's tools go to the model;
 * each tool call it makes runs through the invoker (the one path to a tool endpoint: argument
 * checks, address policy, signing, limits, the call log), and the endpoint's JSON goes back to the
 * model unchanged; a failed call goes back as `{error: {code, message}}` for the model to recover
 * or explain, never as an exception that ends the turn. It repeats until the model answers in text,
 * or `maxToolRounds` answers have called tools: the next request offers the tools with
 * toolChoice `none`, so the model must answer with what it has.
 *
 * A caller may also offer tools it answers itself, later (`pendingTools`: the chat widget's
 * `capture_lead`). They go to the model without `execute`, so in AI SDK 6 a call to one ends the
 * loop with the call pending: nothing runs, the call is recorded with outcome `PENDING` and no
 * result, and the caller hands its result over in a later turn (service.ts `resumeTurn`).
 */

/** What one tool call became. */
export interface ToolRun {
  toolCallId: string;
  name: string;
  arguments: unknown;
  /** Exactly what was handed to the model. */
  result: unknown;
  outcome: string;
  durationMs: number;
  callId: string | null;
}

/** One model request: its text and tokens, then the calls it asked for. */
export interface StepRecord {
  text: string;
  inputTokens: number;
  outputTokens: number;
  tools: ToolRun[];
}

export type LoopEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call-start'; id: string; name: string; arguments: unknown }
  | ({ type: 'tool-call-end' } & Omit<ToolRun, 'toolCallId' | 'arguments'> & { id: string })
  /** Streamed turns only: a model request began, or ended with its tool calls (ui-message-stream.ts's steps). */
  | { type: 'step-start' }
  | { type: 'step-finish' }
  /** Streamed turns only: a call the SDK refused before it ran (recordStep's TOOL_NOT_ENABLED, INVALID_ARGUMENTS). */
  | { type: 'tool-call-refused'; id: string; name: string; arguments: unknown; outcome: string; message: string }
  /** A call of a pending tool: the turn ends with it unanswered, and the caller answers it later. */
  | { type: 'tool-call-pending'; id: string; name: string; arguments: unknown };

/** A tool the caller answers itself, in a later turn: offered without `execute` (see above). */
export interface PendingTool {
  name: string;
  description: string;
  /** JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
}

/** The outcome of a call left for the caller to answer; its result is null until then. */
export const PENDING = 'PENDING';

export interface LoopInput {
  model: ProviderModel;
  instructions: string;
  temperature: number | null;
  maxToolRounds: number;
  history: ModelMessage[];
  /** The agent's tools as `/api/org/agents/{id}/tools?format=openai` exports them. */
  tools: ExportedTool[];
  invoke: (name: string, args: unknown) => ReturnType<Invoker['invoke']>;
  /** Tools the caller answers itself (none on the Operator API's conversations). Same name as an agent's tool: this one is offered. */
  pendingTools?: PendingTool[];
  signal: AbortSignal;
  /** Streams the provider's answer (SSE) instead of one request per step. */
  stream: boolean;
  emit: (event: LoopEvent) => void;
}

export type LoopOutcome =
  | { status: 'complete'; steps: StepRecord[] }
  /** The provider failed (or the client went away): the steps finished before it, and the partial text of the one under way. */
  | { status: 'error' | 'cancelled'; steps: StepRecord[]; partial: string; error: unknown };

/**
 * At most this many of a turn's tool calls run at once; the others wait their turn, in the model's order.
 * The AI SDK starts every call of one answer together, and a model can ask for dozens in one answer: the
 * bound keeps one turn from opening that many connections to one endpoint (a tool's server, often small, sees
 * a burst from a single conversation) while the usual two or three calls still run side by side.
 */
export const MAX_PARALLEL_TOOL_CALLS = 4;

/** A first-come, first-served count of free slots: each task waits for one, and frees it when it ends. */
function slots(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/** One call through the invoker: the endpoint's JSON, or the failure handed to the model as `{error: {code, message}}`. */
async function invoked(input: LoopInput, toolCallId: string, name: string, args: unknown): Promise<ToolRun> {
  const started = performance.now();
  try {
    const success = await input.invoke(name, args);
    return { toolCallId, name, arguments: args, result: success.result, outcome: 'OK', durationMs: success.durationMs, callId: success.callId };
  } catch (error) {
    const code = isAppError(error) ? error.code : 'INTERNAL_ERROR';
    const message = isAppError(error) ? error.message : 'The tool call failed unexpectedly.';
    const callId = isAppError(error) && typeof error.extra?.callId === 'string' ? error.extra.callId : null;
    return { toolCallId, name, arguments: args, result: { error: { code, message } }, outcome: code, durationMs: Math.round(performance.now() - started), callId };
  }
}

function toolSet(input: LoopInput, runs: Map<string, ToolRun>, withheld: ReadonlyMap<string, string>): ToolSet {
  const set: ToolSet = {};
  const bounded = slots(MAX_PARALLEL_TOOL_CALLS);
  for (const exported of input.tools) {
    if (!('function' in exported)) continue;
    const { name, description, parameters } = exported.function;
    set[name] = tool({
      description,
      inputSchema: jsonSchema(parameters as Parameters<typeof jsonSchema>[0]),
      // The endpoint's JSON as JSON, whatever its type (a bare string too), never reworded.
      toModelOutput: ({ output }) => ({ type: 'json', value: output as never }),
      execute: (args: unknown, { toolCallId }) => bounded(async () => {
        const problem = withheld.get(toolCallId);
        input.emit({ type: 'tool-call-start', id: toolCallId, name, arguments: problem === undefined ? args : null });
        // Arguments over a limit (model-output.ts) are never sent: the model is told why.
        const run = problem === undefined
          ? await invoked(input, toolCallId, name, args)
          : { toolCallId, name, arguments: null, result: { error: { code: 'INVALID_ARGUMENTS', message: problem } }, outcome: 'INVALID_ARGUMENTS', durationMs: 0, callId: null };
        runs.set(toolCallId, run);
        input.emit({ type: 'tool-call-end', id: toolCallId, name, result: run.result, outcome: run.outcome, durationMs: run.durationMs, callId: run.callId });
        return run.result;
      }),
    });
  }
  for (const pending of input.pendingTools ?? []) {
    // No execute: a call ends the loop with the call pending (AI SDK 6, "Loop Control").
    set[pending.name] = tool({ description: pending.description, inputSchema: jsonSchema(pending.parameters as Parameters<typeof jsonSchema>[0]) });
  }
  return set;
}

export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const runs = new Map<string, ToolRun>();
  const steps: StepRecord[] = [];
  // Why a call's arguments were withheld (over the size or nesting limit: model-output.ts), by tool call id.
  const withheld = new Map<string, string>();
  const tools = toolSet(input, runs, withheld);
  const known = new Set(Object.keys(tools));
  const pendingNames = new Set((input.pendingTools ?? []).map((pending) => pending.name));
  const settings = {
    model: wrapLanguageModel({ model: input.model, middleware: modelOutputLimits(withheld) }),
    ...(input.instructions.trim() === '' ? {} : { system: input.instructions }),
    ...(input.temperature === null ? {} : { temperature: input.temperature }),
    messages: input.history,
    tools,
    // No automatic retries, as for tool calls: a 429 is the caller's to wait out (its Retry-After is passed on).
    maxRetries: 0,
    abortSignal: input.signal,
    stopWhen: stepCountIs(input.maxToolRounds + 1),
    prepareStep: ({ stepNumber }: { stepNumber: number }) => (stepNumber >= input.maxToolRounds ? { toolChoice: 'none' as const } : undefined),
    onStepFinish: (step: StepResult<ToolSet>) => {
      const record = recordStep(step, runs, known, pendingNames, withheld);
      steps.push(record);
      // A streamed turn says its pending calls as the stream reaches them (below), in order with its text.
      if (!input.stream) for (const run of record.tools) if (run.outcome === PENDING) input.emit({ type: 'tool-call-pending', id: run.toolCallId, name: run.name, arguments: run.arguments });
    },
  };

  if (!input.stream) {
    try {
      await generateText(settings);
      return { status: 'complete', steps };
    } catch (error) {
      return { status: input.signal.aborted ? 'cancelled' : 'error', steps, partial: '', error };
    }
  }

  let partial = '';
  let failure: unknown;
  let aborted = false;
  const result = streamText({ ...settings, onError: () => {} });
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'start-step') {
        partial = '';
        input.emit({ type: 'step-start' });
      } else if (part.type === 'finish-step') input.emit({ type: 'step-finish' });
      else if (part.type === 'text-delta') {
        partial += part.text;
        input.emit({ type: 'text-delta', delta: part.text });
      } else if (part.type === 'error') failure ??= part.error;
      else if (part.type === 'abort') aborted = true;
      else if (part.type === 'tool-call' && pendingNames.has(part.toolName) && part.invalid !== true && !withheld.has(part.toolCallId)) {
        input.emit({ type: 'tool-call-pending', id: part.toolCallId, name: part.toolName, arguments: part.input ?? null });
      }
      else if (part.type === 'tool-error' && !runs.has(part.toolCallId)) {
        const refused = refusal(part.toolName, part.error, known, withheld.get(part.toolCallId));
        input.emit({ type: 'tool-call-refused', id: part.toolCallId, name: part.toolName, arguments: withheld.has(part.toolCallId) ? null : part.input ?? null, outcome: refused.code, message: refused.message });
      }
    }
  } catch (error) {
    failure ??= error;
  }
  if (aborted || input.signal.aborted) return { status: 'cancelled', steps, partial, error: failure };
  if (failure !== undefined) return { status: 'error', steps, partial, error: failure };
  return { status: 'complete', steps };
}

/**
 * The step as recorded: the calls that ran, the calls of pending tools (no result yet), and the calls the SDK
 * refused before they ran (a name the agent has no tool for, unreadable arguments).
 */
function recordStep(step: StepResult<ToolSet>, runs: Map<string, ToolRun>, known: Set<string>, pendingNames: Set<string>, withheld: Map<string, string>): StepRecord {
  const tools: ToolRun[] = [];
  for (const call of step.toolCalls) {
    const run = runs.get(call.toolCallId);
    if (run) {
      tools.push(run);
      continue;
    }
    const failed = step.content.find((part) => part.type === 'tool-error' && part.toolCallId === call.toolCallId);
    if (!failed && pendingNames.has(call.toolName) && !withheld.has(call.toolCallId)) {
      tools.push({ toolCallId: call.toolCallId, name: call.toolName, arguments: call.input ?? null, result: null, outcome: PENDING, durationMs: 0, callId: null });
      continue;
    }
    const problem = withheld.get(call.toolCallId);
    const { code, message } = refusal(call.toolName, failed?.type === 'tool-error' ? failed.error : undefined, known, problem);
    tools.push({ toolCallId: call.toolCallId, name: call.toolName, arguments: problem === undefined ? call.input ?? null : null, result: { error: { code, message } }, outcome: code, durationMs: 0, callId: null });
  }
  return { text: step.text, inputTokens: tokenCount(step.usage.inputTokens), outputTokens: tokenCount(step.usage.outputTokens), tools };
}

/** A provider's token count as we count it: an integer from 0 to MAX_STEP_TOKENS (model-output.ts), 0 for anything else. */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  return Math.min(Math.round(value), MAX_STEP_TOKENS);
}

/**
 * Why the SDK refused a call before it ran: a name the agent has no tool for, or arguments it could not read
 * (`withheld`: ours, over a limit). The SDK's own messages are about the call itself (the name, the JSON it
 * could not parse), never our internals; anything else is said in our words.
 */
function refusal(toolName: string, error: unknown, known: Set<string>, withheld?: string): { code: string; message: string } {
  if (withheld !== undefined) return { code: 'INVALID_ARGUMENTS', message: withheld };
  const sdkSaid = InvalidToolInputError.isInstance(error) || NoSuchToolError.isInstance(error);
  return {
    code: known.has(toolName) ? 'INVALID_ARGUMENTS' : 'TOOL_NOT_ENABLED',
    message: sdkSaid ? (error as Error).message : known.has(toolName) ? 'The arguments could not be read as JSON.' : `There is no tool named "${toolName}".`,
  };
}
