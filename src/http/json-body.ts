import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';

/**
 * The JSON body parser, replacing Fastify's so each failure gets a message a person can act on.
 * `__proto__` and `constructor.prototype` keys are refused rather than stripped: a body that tries
 * prototype pollution is an error, never silently half-accepted.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(new AppError('VALIDATION_ERROR', 'The request body is empty. Send a JSON object.'), undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      const message = /prototype/i.test(reason)
        ? 'The request body may not contain "__proto__" or "constructor.prototype" keys.'
        : `The request body is not valid JSON (${reason.replace(/\.$/, '')}).`;
      done(new AppError('VALIDATION_ERROR', message), undefined);
    }
  });
}
