import type { FastifyBaseLogger } from 'fastify';
import { isPlainObject } from '../lib/json.js';

/**
 * JSON-RPC errors the SDK builds, put in the words docs/mcp.md promises before they leave.
 *
 * The SDK checks each request's params with its zod schemas and, for a spec method whose
 * params do not match (an `initialize` without `protocolVersion` or `clientInfo`, a
 * `tools/list` with a numeric cursor), throws a plain Error carrying zod's issue list as JSON:
 * the client got `-32603` (internal error) with the validator's raw array as the message
 * (`tools/call` gets `-32602`, with the same array). Here that becomes `-32602` with one
 * sentence naming each field; and any other `-32603` keeps the code but not the SDK's
 * internal message, which is logged instead.
 */

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
export const INTERNAL_MESSAGE = 'Something went wrong on our side. Please try again.';

interface Issue {
  path: (string | number)[];
  message: string;
}

function isIssue(value: unknown): value is Issue {
  return isPlainObject(value) && Array.isArray(value.path) && typeof value.message === 'string' && typeof value.code === 'string';
}

/** The validator's issues when `message` carries them as a JSON array (after an optional prefix), else undefined. */
function issuesIn(message: string): { prefix: string; issues: Issue[] } | undefined {
  const start = message.indexOf('[');
  if (start < 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(isIssue)) return undefined;
  return { prefix: message.slice(0, start).trim().replace(/:$/, ''), issues: parsed };
}

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** One issue in a sentence: "params.clientInfo is required (an object)", "params.protocolVersion must be a string (got a number)". */
function describeIssue(issue: Issue): string {
  // Only names that read as field names are repeated: anything else is client text.
  const path = issue.path.map(String).filter((part) => /^[\w/.-]{1,64}$/.test(part)).join('.') || 'the message';
  const types = /expected (\w+), received (\w+)/.exec(issue.message);
  if (types?.[1] !== undefined && types[2] !== undefined) {
    return types[2] === 'undefined' ? `${path} is required (${article(types[1])})` : `${path} must be ${article(types[1])} (got ${types[2] === 'null' ? 'null' : article(types[2])})`;
  }
  return `${path}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** The issues as one sentence (three at most). */
function describe(issues: Issue[]): string {
  return `${issues.slice(0, 3).map(describeIssue).join('; ')}${issues.length > 3 ? '; …' : ''}`;
}

/** One JSON-RPC error object, cleaned; the same object when nothing needed changing. */
function cleanError(error: Record<string, unknown>, log: Pick<FastifyBaseLogger, 'error'>): Record<string, unknown> {
  if (typeof error.message !== 'string') return error;
  const found = issuesIn(error.message);
  if (found) {
    const prefix = found.prefix && !found.prefix.includes('[') ? found.prefix : 'Invalid params';
    return { code: INVALID_PARAMS, message: `${prefix}: ${describe(found.issues)}.` };
  }
  // Ours, in our words (server.ts protocolFailure): a call whose call-log row could not be written.
  const ours = isPlainObject(error.data) && error.data.code === 'SERVICE_UNAVAILABLE';
  if (error.code === INTERNAL_ERROR && error.message !== INTERNAL_MESSAGE && !ours) {
    log.error({ mcpError: error.message }, 'MCP request failed inside the SDK');
    return { code: INTERNAL_ERROR, message: INTERNAL_MESSAGE };
  }
  return error;
}

/** The answer's body with its JSON-RPC errors cleaned (a single message or a batch); other bodies as they are. */
export function cleanProtocolErrors(body: string, log: Pick<FastifyBaseLogger, 'error'>): string {
  // Cheap test first: nearly every answer is a result, and holds no error member at all.
  if (!body.includes('"error"')) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  let changed = false;
  const clean = (message: unknown): unknown => {
    if (!isPlainObject(message) || !isPlainObject(message.error)) return message;
    const error = cleanError(message.error, log);
    if (error === message.error) return message;
    changed = true;
    return { ...message, error };
  };
  const cleaned = Array.isArray(parsed) ? parsed.map(clean) : clean(parsed);
  return changed ? JSON.stringify(cleaned) : body;
}
