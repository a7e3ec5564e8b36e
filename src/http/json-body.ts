import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../lib/json.js';
import { decodeUtf8 } from '../lib/utf8.js';
import { AppError } from './errors.js';

type ParserDone = (error: Error | null, body?: unknown) => void;

export interface JsonBodyOptions {
  /** For bodiless actions (publish, delete) whose clients still send Content-Type. */
  allowEmpty?: boolean;
}

/** A key safe to repeat in a message and as `field`: ours are all like this; anything else is client text and is not quoted. */
const PLAIN_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The request's bytes as text, refusing bytes that are not UTF-8 (they would otherwise become
 * U+FFFD and be stored as something the client never sent).
 */
export function bodyText(bytes: Buffer, what = 'The request body'): string {
  const text = decodeUtf8(bytes);
  if (typeof text === 'string') return text;
  throw new AppError('VALIDATION_ERROR', `${what} is not valid UTF-8 (at byte ${text.invalidAt}). Send text encoded as UTF-8.`);
}

/** Refuses JSON text that nests objects and arrays past MAX_JSON_DEPTH, before it is parsed. */
export function checkJsonDepth(text: string, what = 'The request body'): void {
  const deep = jsonTooDeep(text);
  if (!deep) return;
  const key = deep.key !== undefined && PLAIN_KEY.test(deep.key) ? deep.key : undefined;
  throw new AppError(
    'VALIDATION_ERROR',
    `${what} nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep${key !== undefined ? ` (in "${key}")` : ''}. Send at most ${MAX_JSON_DEPTH} levels.`,
    key !== undefined ? { field: key } : {},
  );
}

/**
 * A JSON body, read so that every failure says what to fix: bytes that are not UTF-8, nesting
 * past MAX_JSON_DEPTH (checked on the text, so nothing recursive ever meets a deep value), and
 * `__proto__` or `constructor.prototype` keys, which are refused rather than stripped (a body
 * that tries prototype pollution is an error, never silently half-accepted). Undefined for an
 * empty body when `allowEmpty`.
 */
export function readJsonBody(bytes: Buffer, options: JsonBodyOptions = {}): unknown {
  const text = bodyText(bytes);
  if (text.trim() === '') {
    if (options.allowEmpty) return undefined;
    throw new AppError('VALIDATION_ERROR', 'The request body is empty. Send a JSON object.');
  }
  checkJsonDepth(text);
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : '';
    throw new AppError('VALIDATION_ERROR', /prototype/i.test(reason)
      ? 'The request body may not contain "__proto__" or "constructor.prototype" keys.'
      : invalidJsonMessage(reason));
  }
}

/** The parser function itself, for a scope that wraps it (the MCP route reads the JSON-RPC id of a refused body). */
export function jsonBodyParser(options: JsonBodyOptions = {}) {
  return (_request: FastifyRequest, body: string | Buffer, done: ParserDone): void => {
    try {
      done(null, readJsonBody(typeof body === 'string' ? Buffer.from(body) : body, options));
    } catch (error) {
      done(error as Error);
    }
  };
}

/**
 * Says where the JSON broke without quoting it: JSON.parse's own message can quote the first
 * characters of the body (`Unexpected token 's', "svc_cs_…" is not valid JSON`), which may be a secret.
 * Only the position it reports at the end of some messages is kept.
 */
function invalidJsonMessage(reason: string): string {
  const position = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(reason)?.[1];
  if (position !== undefined) return `The request body is not valid JSON (at position ${position}).`;
  if (/^Unexpected end of JSON input/.test(reason)) return 'The request body is not valid JSON (it ends too early).';
  return 'The request body is not valid JSON.';
}

/**
 * The one way a scope reads JSON bodies: as bytes (Fastify's `parseAs: 'string'` would decode
 * them leniently, turning invalid UTF-8 into U+FFFD before we could refuse it), through `readJsonBody`.
 * Every scope that reads JSON registers its parser here, so none can skip the checks.
 */
export function addJsonBodyParser(scope: FastifyInstance, options: JsonBodyOptions = {}, parser = jsonBodyParser(options)): void {
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
}

/** Replaces Fastify's default JSON parser for the whole app. */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  addJsonBodyParser(app);
}
