import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { redactPaths } from './redact.js';
import { requestChildLogger, requestIdMixin } from './request-logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const root = pino({ level: 'info', redact: { paths: redactPaths, censor: '[redacted]' }, mixin: requestIdMixin }, stream);
  return { root, lines };
}

describe('each request\'s logger', () => {
  it('writes its request id on its lines and its children\'s, redacted as the parent is, and none on the parent\'s', () => {
    const { root, lines } = capture();
    const log = requestChildLogger(root, { reqId: 'req_a' }, {});
    log.info({ body: { password: 'hunter2' } }, 'one');
    log.child({ step: 'two' }).info('two');
    root.info('not a request');
    log.debug('below the level');
    expect(lines.map(({ reqId, msg, step, body }) => ({ reqId, msg, step, password: (body as { password?: string } | undefined)?.password }))).toEqual([
      { reqId: 'req_a', msg: 'one', step: undefined, password: '[redacted]' },
      { reqId: 'req_a', msg: 'two', step: 'two', password: undefined },
      { reqId: undefined, msg: 'not a request', step: undefined, password: undefined },
    ]);
  });

  it('is a real child at a route\'s own level (logLevel), leaving the parent\'s level alone', () => {
    const { root, lines } = capture();
    const log = requestChildLogger(root, { reqId: 'req_b' }, { level: 'warn' });
    log.info('quiet');
    log.warn('loud');
    root.info('parent');
    expect(lines.map(({ reqId, msg }) => ({ reqId, msg }))).toEqual([{ reqId: 'req_b', msg: 'loud' }, { reqId: undefined, msg: 'parent' }]);
    expect(root.level).toBe('info');
  });
});
