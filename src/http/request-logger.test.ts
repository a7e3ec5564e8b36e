import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from './request-logger.js';
import { redactPaths } from './redact.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const parent = pino({ level, redact: { paths: redactPaths, censor: '[redacted]' } }, stream);
  return { parent, lines };
}

describe('request loggers', () => {
  it('write nothing and build no child below the level', () => {
    const { parent, lines } = capture('warn');
    let children = 0;
    const counting = Object.assign(Object.create(parent) as typeof parent, {
      child: (...args: Parameters<typeof parent.child>) => {
        children++;
        return parent.child(...args);
      },
    });
    const log = lazyChildLoggerFactory(counting, { reqId: 'req_1' }, {});
    log.info('incoming request');
    log.debug({ a: 1 }, 'details');
    expect(children).toBe(0);
    expect(lines).toEqual([]);
    log.warn('slow');
    log.error({ err: new Error('boom') }, 'failed');
    expect(children).toBe(1);
    expect(lines.map((line) => [line.reqId, line.msg])).toEqual([
      ['req_1', 'slow'],
      ['req_1', 'failed'],
    ]);
  });

  it('keep the parent redaction and reach child loggers of their own', () => {
    const { parent, lines } = capture('info');
    const log = lazyChildLoggerFactory(parent, { reqId: 'req_2' }, {});
    log.info({ body: { password: 'hunter2' } }, 'login');
    log.child({ step: 'auth' }).info('checked');
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    expect(lines[1]).toMatchObject({ reqId: 'req_2', step: 'auth', msg: 'checked' });
  });

  it('report the level in force and let it change', () => {
    const { parent, lines } = capture('warn');
    const log = lazyChildLoggerFactory(parent, { reqId: 'req_3' }, {});
    expect(log.level).toBe('warn');
    log.level = 'debug';
    log.debug('now visible');
    expect(lines.map((line) => line.msg)).toEqual(['now visible']);
  });

  it("follow a route's own level, quieter or louder than the server's", () => {
    const { parent, lines } = capture('info');
    const quiet = lazyChildLoggerFactory(parent, { reqId: 'req_4' }, { level: 'warn' });
    quiet.info('incoming request');
    const loud = lazyChildLoggerFactory(parent, { reqId: 'req_5' }, { level: 'debug' });
    loud.debug('details for this route');
    expect(lines.map((line) => [line.reqId, line.msg])).toEqual([['req_5', 'details for this route']]);
  });
});
