import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';

type ParserDone = (error: Error | null, body?: unknown) => void;

/**
 * A JSON body parser whose every failure says what to fix. `__proto__` and
 * `constructor.prototype` keys are refused rather than stripped: a body that tries
 * prototype pollution is an error, never silently half-accepted.
 * `allowEmpty` is for bodiless actions (publish, delete) whose clients still send Content-Type.
 */
export function jsonBodyParser(options: { allowEmpty?: boolean } = {}) {
  return (_request: FastifyRequest, body: string | Buffer, done: ParserDone): void => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      if (options.allowEmpty) done(null, undefined);
      else done(new AppError('VALIDATION_ERROR', 'The request body is empty. Send a JSON object.'));
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      const message = /prototype/i.test(reason)
        ? 'The request body may not contain "__proto__" or "constructor.prototype" keys.'
        : invalidJsonMessage(reason);
      done(new AppError('VALIDATION_ERROR', message));
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

/** Replaces Fastify's default JSON parser for the whole app. */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser());
}
