import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const dataDir = () => mkdtempSync(join(tmpdir(), 'switchboard-config-'));

describe('loadConfig', () => {
  it('serves a laptop with no variables at all', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({ env: 'development', port: 3000, host: '127.0.0.1', publicUrl: 'http://localhost:3000', databaseUrl: undefined, trustProxy: false });
    expect(config.secretsKey).toHaveLength(32);
    // PostgreSQL's rule of thumb: twice the cores plus a couple.
    expect(config.databasePoolSize).toBe(availableParallelism() * 2 + 2);
    expect(config.http).toEqual({ headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, maxConnections: 4096, maxConnectionsPerAddress: 256 });
    expect(config.sqliteSynchronous).toBe('normal');
    expect(config.databaseLimits).toEqual({ connectTimeoutMs: 2000, acquireTimeoutMs: 3000, statementTimeoutMs: 5000, sqliteBusyTimeoutMs: 1000 });
    // The generated key is kept, so credentials stay readable after a restart.
    expect(loadConfig({ DATA_DIR: dir }).secretsKey.equals(config.secretsKey)).toBe(true);
    expect(Buffer.from(readFileSync(join(dir, 'secrets.key'), 'utf8').trim(), 'base64').equals(config.secretsKey)).toBe(true);
    // Only the start that made the file says so (the server logs it); the file is the owner's alone.
    expect(config.secretsKeyGenerated).toBe(join(dir, 'secrets.key'));
    expect(loadConfig({ DATA_DIR: dir }).secretsKeyGenerated).toBeUndefined();
    expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });

  it('reads SECRETS_KEY_PREVIOUS for a rotation, and refuses a bad or identical one', () => {
    const current = 'a'.repeat(64);
    const previous = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({ DATA_DIR: dataDir(), SECRETS_KEY: current, SECRETS_KEY_PREVIOUS: previous });
    expect(config.secretsKeyPrevious?.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.secretsKeyGenerated).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dataDir(), SECRETS_KEY: current }).secretsKeyPrevious).toBeUndefined();
    expect(() => loadConfig({ DATA_DIR: dataDir(), SECRETS_KEY: current, SECRETS_KEY_PREVIOUS: 'c2hvcnQ=' })).toThrow(/SECRETS_KEY_PREVIOUS must be 32 bytes/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), SECRETS_KEY: current, SECRETS_KEY_PREVIOUS: current })).toThrow(/SECRETS_KEY_PREVIOUS is the same key/);
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production', PORT: '8080', HOST: '0.0.0.0', PUBLIC_URL: 'https://sb.example.com/', DATA_DIR: dataDir(),
      DATABASE_URL: 'postgres://u:p@db/sb', REDIS_URL: 'redis://cache:6379', SECRETS_KEY: KEY, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      LOG_LEVEL: 'warn', TOOL_CALL_TIMEOUT_MS: '20000', DATABASE_POOL_SIZE: '40', SQLITE_SYNCHRONOUS: 'FULL',
      HTTP_HEADERS_TIMEOUT_MS: '10000', HTTP_REQUEST_TIMEOUT_MS: '60000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '620000', HTTP_MAX_CONNECTIONS: '20000',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000',
      DATABASE_CONNECT_TIMEOUT_MS: '1500', DATABASE_ACQUIRE_TIMEOUT_MS: '2500', DATABASE_STATEMENT_TIMEOUT_MS: '30000', SQLITE_BUSY_TIMEOUT_MS: '0',
      WEBHOOK_DELIVERY: 'off', NOTIFICATION_DELIVERY: 'off',
    });
    expect(config).toMatchObject({
      env: 'production', port: 8080, host: '0.0.0.0', publicUrl: 'https://sb.example.com', databaseUrl: 'postgres://u:p@db/sb',
      redisUrl: 'redis://cache:6379', databasePoolSize: 40, trustProxy: ['10.0.0.0/8', '127.0.0.1'], logLevel: 'warn', toolCallTimeoutMs: 20000,
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 620_000, maxConnections: 20_000, maxConnectionsPerAddress: 1000 },
      sqliteSynchronous: 'full', webhookDelivery: 'off', notificationDelivery: 'off',
      databaseLimits: { connectTimeoutMs: 1500, acquireTimeoutMs: 2500, statementTimeoutMs: 30_000, sqliteBusyTimeoutMs: 0 },
    });
  });

  it('shares the connection cap 256 per address by default, or the whole cap when it is smaller', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), HTTP_MAX_CONNECTIONS: '100' }).http.maxConnectionsPerAddress).toBe(100);
    expect(loadConfig({ DATA_DIR: dataDir(), HTTP_MAX_CONNECTIONS: '100', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '100' }).http.maxConnectionsPerAddress).toBe(100);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PUBLIC_URL: 'not a url' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'https://sb.example.com/?tenant=1' }, /PUBLIC_URL must not have a query/],
    [{ PUBLIC_URL: 'https://sb.example.com/#top' }, /PUBLIC_URL must not have a query or fragment/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres/],
    [{ SECRETS_KEY: 'c2hvcnQ=' }, /SECRETS_KEY must be 32 bytes/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ TOOL_CALL_TIMEOUT_MS: '60000' }, /TOOL_CALL_TIMEOUT_MS/],
    [{ DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE/],
    [{ SQLITE_SYNCHRONOUS: 'off' }, /SQLITE_SYNCHRONOUS must be one of normal, full/],
    [{ WEBHOOK_DELIVERY: 'later' }, /WEBHOOK_DELIVERY must be one of on, off/],
    [{ NOTIFICATION_DELIVERY: 'later' }, /NOTIFICATION_DELIVERY must be one of on, off/],
    [{ TOOL_ALLOW_PRIVATE_ENDPOINTS: 'maybe' }, /TOOL_ALLOW_PRIVATE_ENDPOINTS/],
    [{ MODEL_ALLOW_PRIVATE_ENDPOINTS: 'maybe' }, /MODEL_ALLOW_PRIVATE_ENDPOINTS must be 1 or 0/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV/],
    [{ HTTP_HEADERS_TIMEOUT_MS: '500' }, /HTTP_HEADERS_TIMEOUT_MS/],
    [{ HTTP_REQUEST_TIMEOUT_MS: '1h' }, /HTTP_REQUEST_TIMEOUT_MS/],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '0' }, /HTTP_KEEP_ALIVE_TIMEOUT_MS/],
    [{ HTTP_MAX_CONNECTIONS: '0' }, /HTTP_MAX_CONNECTIONS/],
    [{ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }, /HTTP_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1/],
    // A share of the cap cannot be larger than the cap.
    [{ HTTP_MAX_CONNECTIONS: '100', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '101' }, /HTTP_MAX_CONNECTIONS_PER_ADDRESS \(101\) must not exceed HTTP_MAX_CONNECTIONS \(100\)/],
    [{ DATABASE_CONNECT_TIMEOUT_MS: '50' }, /DATABASE_CONNECT_TIMEOUT_MS must be a whole number from 100 to 60000/],
    [{ DATABASE_ACQUIRE_TIMEOUT_MS: '3s' }, /DATABASE_ACQUIRE_TIMEOUT_MS/],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '0' }, /DATABASE_STATEMENT_TIMEOUT_MS/],
    [{ SQLITE_BUSY_TIMEOUT_MS: '60000' }, /SQLITE_BUSY_TIMEOUT_MS must be a whole number from 0 to 10000/],
    // Headers are part of the request, so their limit cannot be the longer one.
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, /HTTP_HEADERS_TIMEOUT_MS \(40000\) must not exceed HTTP_REQUEST_TIMEOUT_MS \(30000\)/],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(message);
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(ConfigError);
  });

  it('reads session expiry, SMTP_URL and MAIL_FROM, and refuses bad values', () => {
    const dir = dataDir();
    const defaults = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://forms.example.com' });
    expect(defaults.sessions).toEqual({ idleMs: 7 * 86_400_000, absoluteMs: 30 * 86_400_000 });
    expect(defaults.smtpUrl).toBeUndefined();
    expect(defaults.mailFrom).toBe('Switchboard <no-reply@forms.example.com>');
    const set = loadConfig({ DATA_DIR: dir, SESSION_IDLE_DAYS: '1', SESSION_MAX_DAYS: '14', SMTP_URL: 'smtps://user:pass@mail.example.com:465', MAIL_FROM: 'Acme <hi@acme.example>' });
    expect(set.sessions).toEqual({ idleMs: 86_400_000, absoluteMs: 14 * 86_400_000 });
    expect(set.smtpUrl).toBe('smtps://user:pass@mail.example.com:465');
    expect(set.mailFrom).toBe('Acme <hi@acme.example>');
    expect(() => loadConfig({ DATA_DIR: dir, SESSION_IDLE_DAYS: '40' })).toThrow(/SESSION_IDLE_DAYS \(40\) must not exceed SESSION_MAX_DAYS \(30\)/);
    expect(() => loadConfig({ DATA_DIR: dir, SESSION_MAX_DAYS: '0' })).toThrow(/SESSION_MAX_DAYS must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: dir, SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    expect(() => loadConfig({ DATA_DIR: dir, MAIL_FROM: 'nobody' })).toThrow(ConfigError);
  });

  it('refuses unsafe defaults in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toThrow(/SECRETS_KEY is required/);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' })).toThrow(/TOOL_ALLOW_PRIVATE_ENDPOINTS/);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir(), PUBLIC_URL: 'https://sb.example.com', MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }))
      .toThrow('MODEL_ALLOW_PRIVATE_ENDPOINTS is for local development and cannot be set when NODE_ENV=production.');
    // Links, the OAuth issuer and the Secure session cookie need the https address.
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir() })).toThrow(/PUBLIC_URL must be the service's https:\/\/ address .*the default/);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir(), PUBLIC_URL: 'http://sb.example.com' })).toThrow(/PUBLIC_URL must be the service's https:\/\/ address/);
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir(), PUBLIC_URL: 'https://sb.example.com' }).publicUrl).toBe('https://sb.example.com');
    // A cheaper password hash is for tests and development: production keeps OWASP's cost or more.
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir(), PUBLIC_URL: 'https://sb.example.com', PASSWORD_HASH_COST: '16' }))
      .toThrow('PASSWORD_HASH_COST below 17 is for tests and local development and cannot be set when NODE_ENV=production.');
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: KEY, DATA_DIR: dataDir(), PUBLIC_URL: 'https://sb.example.com', PASSWORD_HASH_COST: '18' }).passwordHashCost).toBe(18);
  });

  it('hashes passwords at scrypt N=2^17 unless PASSWORD_HASH_COST says otherwise, within 2^10–2^20', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).passwordHashCost).toBe(17);
    expect(loadConfig({ DATA_DIR: dataDir(), PASSWORD_HASH_COST: '10' }).passwordHashCost).toBe(10);
    expect(() => loadConfig({ DATA_DIR: dataDir(), PASSWORD_HASH_COST: '9' })).toThrow(/PASSWORD_HASH_COST must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), PASSWORD_HASH_COST: '21' })).toThrow(/PASSWORD_HASH_COST must be a whole number/);
  });
});
