import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Configuration, read from the environment and validated once at start-up.
 * Every variable is listed in the README's configuration table.
 */
export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** `{base_url}` / `{api_url}`: used in links and embed snippets. No trailing slash. */
  publicUrl: string;
  dataDir: string;
  /** `postgres://…` for PostgreSQL; otherwise the embedded SQLite file. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per node. */
  databasePoolSize: number;
  /** SQLite's `synchronous` in WAL mode: `full` also survives an OS crash or power loss, at a cost per commit. */
  sqliteSynchronous: 'normal' | 'full';
  redisUrl: string | undefined;
  /** 32-byte key for credentials at rest (AES-256-GCM). */
  secretsKey: Buffer;
  /** `false`, `true`, a hop count, or a list of proxy addresses/CIDRs (Fastify's trustProxy). */
  trustProxy: boolean | number | string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  toolAllowPrivateEndpoints: boolean;
  toolCaFile: string | undefined;
  toolCallTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}").`);
  }
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(`${name} must be 1 or 0 (got "${env[name]}").`);
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(', ')} (got "${env[name]}").`);
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}").`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}.`);
  }
  return raw;
}

function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  const value = (raw ?? '').trim();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((part) => part.trim()).filter(Boolean);
}

/** SECRETS_KEY (base64 or hex of 32 bytes); in development a key file in DATA_DIR is made once. */
function loadSecretsKey(env: Env, production: boolean, dataDir: string): Buffer {
  const raw = env.SECRETS_KEY;
  if (raw !== undefined && raw !== '') {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes, base64 or hex encoded (try: openssl rand -base64 32).');
    return key;
  }
  if (production) throw new ConfigError('SECRETS_KEY is required when NODE_ENV=production (try: openssl rand -base64 32).');
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  return key;
}

/**
 * PostgreSQL's own rule of thumb for a pool: twice the cores plus a couple, past which
 * more connections only queue inside the database. This node's cores stand in for the
 * database's (right when both share a host; set DATABASE_POOL_SIZE for a bigger server).
 */
function defaultPoolSize(): number {
  return availableParallelism() * 2 + 2;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv !== 'development' && nodeEnv !== 'production' && nodeEnv !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test (got "${nodeEnv}").`);
  }
  const production = nodeEnv === 'production';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST && env.HOST !== '' ? env.HOST : '127.0.0.1';
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const dataDirRaw = env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(dataDirRaw);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const logLevel = (env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info')) as Config['logLevel'];
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}").`);
  }
  const toolAllowPrivateEndpoints = flag(env, 'TOOL_ALLOW_PRIVATE_ENDPOINTS');
  if (production && toolAllowPrivateEndpoints) {
    throw new ConfigError('TOOL_ALLOW_PRIVATE_ENDPOINTS is for local development and cannot be set when NODE_ENV=production.');
  }
  const toolCaFile = env.TOOL_CA_FILE && env.TOOL_CA_FILE !== '' ? env.TOOL_CA_FILE : undefined;
  if (production && toolCaFile) {
    throw new ConfigError('TOOL_CA_FILE is for local development and tests and cannot be set when NODE_ENV=production.');
  }
  if (toolCaFile && !existsSync(toolCaFile)) throw new ConfigError(`TOOL_CA_FILE points to a missing file: ${toolCaFile}`);

  return {
    env: nodeEnv,
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', defaultPoolSize(), 1, 500),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['normal', 'full'] as const, 'normal'),
    redisUrl,
    secretsKey: loadSecretsKey(env, production, dataDir),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    logLevel,
    toolAllowPrivateEndpoints,
    toolCaFile,
    toolCallTimeoutMs: integer(env, 'TOOL_CALL_TIMEOUT_MS', 15000, 1000, 30000),
  };
}
