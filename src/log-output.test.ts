import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { chooseLogFormat, logOutput, PRETTY_OPTIONS } from './log-output.js';
import { createTestContext } from '../test/support/context.js';

const ENV = { NODE_ENV: 'development', SECRETS_KEY: '0'.repeat(64), DATA_DIR: '/tmp/switchboard-log-output-test' };

describe('the format of the logs', () => {
  it('is pretty in development at a terminal, JSON otherwise and always in production; LOG_FORMAT decides outside production', () => {
    const cases = [
      { env: 'development', logFormat: 'auto', tty: true, format: 'pretty' },
      { env: 'development', logFormat: 'auto', tty: false, format: 'json' },
      { env: 'test', logFormat: 'auto', tty: true, format: 'json' },
      { env: 'production', logFormat: 'auto', tty: true, format: 'json' },
      { env: 'production', logFormat: 'json', tty: true, format: 'json' },
      // config.ts refuses LOG_FORMAT=pretty in production; were it let through, production would still log JSON.
      { env: 'production', logFormat: 'pretty', tty: true, format: 'json' },
      { env: 'development', logFormat: 'json', tty: true, format: 'json' },
      { env: 'development', logFormat: 'pretty', tty: false, format: 'pretty' },
      { env: 'test', logFormat: 'pretty', tty: false, format: 'pretty' },
    ] as const;
    for (const { env, logFormat, tty, format } of cases) {
      expect({ env, logFormat, tty, format: chooseLogFormat({ env, logFormat }, tty) }).toEqual({ env, logFormat, tty, format });
    }
  });

  it('reads LOG_FORMAT once: auto by default, json or pretty, anything else refused, pretty refused in production', () => {
    expect(loadConfig(ENV).logFormat).toBe('auto');
    expect(loadConfig({ ...ENV, LOG_FORMAT: 'JSON' }).logFormat).toBe('json');
    expect(loadConfig({ ...ENV, LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ ...ENV, LOG_FORMAT: 'colour' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...ENV, LOG_FORMAT: 'colour' })).toThrow(/LOG_FORMAT must be one of auto, json, pretty/);
    const production = { ...ENV, NODE_ENV: 'production', PUBLIC_URL: 'https://switchboard.example' };
    expect(loadConfig({ ...production, LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ ...production, LOG_FORMAT: 'pretty' })).toThrow(/LOG_FORMAT=pretty .* production logs are JSON/);
  });

  it('JSON is pino\'s own standard output, and never loads the pretty printer', async () => {
    let loaded = false;
    const output = await logOutput('json', async () => {
      loaded = true;
      throw new Error('not to be loaded');
    });
    expect(output).toEqual({ format: 'json', stream: undefined });
    expect(loaded).toBe(false);
  });

  it('falls back to JSON, and says so once, when pino-pretty is not installed', async () => {
    const output = await logOutput('pretty', async () => {
      throw Object.assign(new Error("Cannot find package 'pino-pretty'"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    expect(output.format).toBe('json');
    expect(output.stream).toBeUndefined();
    expect(output.notice).toMatch(/pino-pretty/);
  });

  it('pretty: one line per entry, the level by name, the request id, the same levels, and secrets still redacted', async () => {
    const printed: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        printed.push(String(chunk));
        done();
      },
    });
    const { default: pretty } = (await import('pino-pretty')) as unknown as { default: (options: object) => Writable };
    const logStream = pretty({ ...PRETTY_OPTIONS, colorize: false, destination });
    const t = await createTestContext('sqlite', { env: { LOG_LEVEL: 'info' }, deps: { logStream } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/dev/tools?access_token=svc_at_querysecret', headers: { authorization: 'Bearer svc_at_headersecret' } });
      expect(res.statusCode).toBe(401);
      t.app.log.info({ body: { email: 'ada@example.com', password: 'hunter2-secret' } }, 'signed in');
    } finally {
      await t.close();
    }
    const lines = printed.join('').trimEnd().split('\n');
    const requestId = (line: string) => /"reqId":"(req_[0-9A-Za-z]+)"/.exec(line)?.[1];
    // Fastify's two lines of the request, at info as ever, with its id; the 401 is a warning, not an error.
    const incoming = lines.find((line) => line.includes('incoming request'));
    const completed = lines.find((line) => line.includes('request completed'));
    expect(incoming).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: incoming request \{/);
    expect(completed).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed \{/);
    expect(requestId(incoming!)).toBeDefined();
    expect(requestId(completed!)).toBe(requestId(incoming!));
    expect(lines.find((line) => line.includes('signed in'))).toMatch(/INFO: signed in \{.*"password":"\[redacted\]"/);
    // Every entry is one line, in plain text (no JSON line), and no secret is on any of them.
    for (const line of lines) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: /);
    const all = printed.join('');
    for (const secret of ['svc_at_querysecret', 'svc_at_headersecret', 'hunter2-secret']) expect(all).not.toContain(secret);
  });
});
