import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_DATABASE_LIMITS, type DatabaseLimits } from './db/limits.js';
import type { TrustProxy } from './http/proxy-peers.js';
import { makeDataDir } from './lib/data-dir.js';
import { DEFAULT_PASSWORD_HASH_COST } from './lib/hashing.js';
import type { MetricsConfig } from './metrics/metrics.js';
import type { SessionLimits } from './sessions/sessions-service.js';

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
  /** How long a request waits on the database before it is answered 503 (see databaseLimits). */
  databaseLimits: DatabaseLimits;
  /** SQLite's `synchronous` in WAL mode: `full` also survives an OS crash or power loss, at a cost per commit. */
  sqliteSynchronous: 'normal' | 'full';
  redisUrl: string | undefined;
  /** 32-byte key for credentials at rest (AES-256-GCM). */
  secretsKey: Buffer;
  /** SECRETS_KEY_PREVIOUS: while `switchboard secrets rotate` runs, the key values are still sealed under. */
  secretsKeyPrevious: Buffer | undefined;
  /** Set when this start generated DATA_DIR/secrets.key (development without SECRETS_KEY): the server logs it. */
  secretsKeyGenerated: string | undefined;
  /** `false`, `true`, a hop count, or a list of proxy addresses/CIDRs (Fastify's trustProxy). */
  trustProxy: TrustProxy;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * LOG_FORMAT: `auto` (default) prints pretty, one-line, colored lines in development when standard output is a
   * terminal, and JSON otherwise; `json` or `pretty` says which (log-output.ts). Production logs are always JSON.
   */
  logFormat: 'auto' | 'json' | 'pretty';
  toolAllowPrivateEndpoints: boolean;
  /** MODEL_ALLOW_PRIVATE_ENDPOINTS: model provider base URLs on private addresses, and plain http:// to a local one (development only). */
  modelAllowPrivateEndpoints: boolean;
  toolCaFile: string | undefined;
  /** PASSWORD_HASH_COST: log2 of scrypt's N for new password hashes (lib/hashing.ts); 17 unless tests or development lower it. */
  passwordHashCost: number;
  toolCallTimeoutMs: number;
  /** MODEL_TIMEOUT_MS: time limit of one request to a model provider (a streamed answer included). */
  modelTimeoutMs: number;
  /** Limits on client connections (see httpLimits). */
  http: HttpLimits;
  /** Console sessions: idle and absolute expiry. */
  sessions: SessionLimits;
  /** `smtp://` or `smtps://`: invitations, password-reset links and notifications are emailed; without it links are shown or logged, and no notification is sent. */
  smtpUrl: string | undefined;
  /** The From of those emails. */
  mailFrom: string;
  /** Where Prometheus metrics are served, if anywhere (metrics/serve.ts). */
  metrics: MetricsConfig;
  /**
   * WEBHOOK_DELIVERY: `on` (default), this node sends webhook deliveries; `off`, it queues events with the
   * changes that cause them and leaves the sending to the nodes that have it on (a fleet whose web nodes
   * keep their CPU for requests, with delivery on one or two others).
   */
  webhookDelivery: 'on' | 'off';
  /**
   * NOTIFICATION_DELIVERY: `on` (default), this node sends the notification emails the outbox holds; `off`, it
   * queues them with the changes that cause them and leaves the sending to the nodes that have it on.
   */
  notificationDelivery: 'on' | 'off';
}

/** What one client connection may take from the server. */
export interface HttpLimits {
  /** Time to send the request line and headers. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections at once; at the cap the longest-idle one is closed for a newcomer (http/connection-fairness.ts). */
  maxConnections: number;
  /** Open connections from one client address (an IPv6 /64), unless TRUST_PROXY names it as a proxy. */
  maxConnectionsPerAddress: number;
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

function decodeKey(name: string, raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes, base64 or hex encoded (try: openssl rand -base64 32).`);
  return key;
}

/** SECRETS_KEY_PREVIOUS: optional, 32 bytes, and not the same key as SECRETS_KEY. */
function loadPreviousSecretsKey(env: Env, current: Buffer): Buffer | undefined {
  const raw = env.SECRETS_KEY_PREVIOUS;
  if (raw === undefined || raw === '') return undefined;
  const key = decodeKey('SECRETS_KEY_PREVIOUS', raw);
  if (key.equals(current)) throw new ConfigError('SECRETS_KEY_PREVIOUS is the same key as SECRETS_KEY: set SECRETS_KEY to the new key and SECRETS_KEY_PREVIOUS to the old one.');
  return key;
}

/** SECRETS_KEY (base64 or hex of 32 bytes); in development a key file in DATA_DIR is made once (`generated` names it). */
function loadSecretsKey(env: Env, production: boolean, dataDir: string): { key: Buffer; generated?: string } {
  const raw = env.SECRETS_KEY;
  if (raw !== undefined && raw !== '') return { key: decodeKey('SECRETS_KEY', raw) };
  if (production) throw new ConfigError('SECRETS_KEY is required when NODE_ENV=production (try: openssl rand -base64 32).');
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return { key: decodeKey(`The key in ${file}`, readFileSync(file, 'utf8').trim()) };
  makeDataDir(dataDir);
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  return { key, generated: file };
}

/**
 * PostgreSQL's own rule of thumb for a pool: twice the cores plus a couple, past which
 * more connections only queue inside the database. This node's cores stand in for the
 * database's (right when both share a host; set DATABASE_POOL_SIZE for a bigger server).
 */
function defaultPoolSize(): number {
  return availableParallelism() * 2 + 2;
}

/**
 * Defaults a reverse proxy would use, so a slow or idle client cannot hold the server open
 * (2,000 clients trickling a body one byte every 10 s all stayed connected before these):
 * - headers 15 s: a client on any working network sends its headers in well under a second;
 *   nginx allows 60 s, tighter here since a proxy in front buffers for slow clients anyway.
 * - whole request 30 s: bodies are at most 256 KB, which a 100 kbit/s link sends in about 20 s.
 * - keep-alive 72 s: longer than the 60 s idle timeout of nginx's upstream keep-alive and of AWS
 *   and most load balancers, so the balancer never reuses a connection we have just closed
 *   (it would answer 502); Fastify picked the same figure for the same reason.
 * - 4,096 connections: a common nginx worker_connections. A balancer needs a few dozen; a request
 *   in flight holds about 6.5 KB of heap (measured with 2,000 trickling clients), so a connection
 *   flood costs at most some 30 MB and a few thousand file descriptors.
 */
function httpLimits(env: Env): HttpLimits {
  const maxConnections = integer(env, 'HTTP_MAX_CONNECTIONS', 4096, 1, 1_000_000);
  const limits: HttpLimits = {
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 15_000, 1000, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000),
    maxConnections,
    maxConnectionsPerAddress: connectionsPerAddress(env, maxConnections),
  };
  // Node refuses a headers timeout longer than the whole-request one.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}): the headers are part of the request.`,
    );
  }
  return limits;
}

/**
 * HTTP_MAX_CONNECTIONS_PER_ADDRESS, default 256 (or the cap, if smaller): a sixteenth of the default
 * cap, so filling it takes sixteen addresses, while a browser opens at most 6 connections to a host,
 * which leaves room for some forty people behind one NAT address with every connection busy (and
 * idle ones make room for their own address's newcomers).
 */
function connectionsPerAddress(env: Env, maxConnections: number): number {
  const perAddress = integer(env, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS', Math.min(256, maxConnections), 1, 1_000_000);
  if (perAddress > maxConnections) {
    throw new ConfigError(`HTTP_MAX_CONNECTIONS_PER_ADDRESS (${perAddress}) must not exceed HTTP_MAX_CONNECTIONS (${maxConnections}): it is a share of the cap.`);
  }
  return perAddress;
}

/** The database waits (DATABASE_*_TIMEOUT_MS, SQLITE_BUSY_TIMEOUT_MS); the defaults and why are in db/limits.ts. */
function databaseLimits(env: Env): DatabaseLimits {
  const d = DEFAULT_DATABASE_LIMITS;
  return {
    connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', d.connectTimeoutMs, 100, 60_000),
    acquireTimeoutMs: integer(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', d.acquireTimeoutMs, 100, 60_000),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', d.statementTimeoutMs, 100, 600_000),
    // Past a few seconds the frozen event loop (see limits.ts) is worse than the 503.
    sqliteBusyTimeoutMs: integer(env, 'SQLITE_BUSY_TIMEOUT_MS', d.sqliteBusyTimeoutMs, 0, 10_000),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

function sessionLimits(env: Env): SessionLimits {
  const idleDays = integer(env, 'SESSION_IDLE_DAYS', 7, 1, 365);
  const maxDays = integer(env, 'SESSION_MAX_DAYS', 30, 1, 365);
  if (idleDays > maxDays) throw new ConfigError(`SESSION_IDLE_DAYS (${idleDays}) must not exceed SESSION_MAX_DAYS (${maxDays}): no session outlives its absolute expiry.`);
  return { idleMs: idleDays * DAY_MS, absoluteMs: maxDays * DAY_MS };
}

/** MAIL_FROM, or `Switchboard <no-reply@host of PUBLIC_URL>`. */
function mailFrom(env: Env, publicUrl: string): string {
  const raw = (env.MAIL_FROM ?? '').trim();
  if (raw === '') return `Switchboard <no-reply@${new URL(publicUrl).hostname}>`;
  if (!/^[^\r\n]*@[^\r\n]*$/.test(raw) || raw.length > 200) throw new ConfigError(`MAIL_FROM must be an address such as "Switchboard <no-reply@example.com>" (got "${raw}").`);
  return raw;
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
  // Links are built by appending paths to it, and it is the OAuth issuer (RFC 8414 §2: no query or fragment).
  if (/[?#]/.test(publicUrl)) throw new ConfigError(`PUBLIC_URL must not have a query or fragment (got "${publicUrl}").`);
  const dataDirRaw = env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(dataDirRaw);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const logLevel = (env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info')) as Config['logLevel'];
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}").`);
  }
  const logFormat = oneOf(env, 'LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto');
  if (production && logFormat === 'pretty') {
    throw new ConfigError('LOG_FORMAT=pretty is for a person reading a terminal in development and cannot be set when NODE_ENV=production: production logs are JSON.');
  }
  const toolAllowPrivateEndpoints = flag(env, 'TOOL_ALLOW_PRIVATE_ENDPOINTS');
  if (production && toolAllowPrivateEndpoints) {
    throw new ConfigError('TOOL_ALLOW_PRIVATE_ENDPOINTS is for local development and cannot be set when NODE_ENV=production.');
  }
  const modelAllowPrivateEndpoints = flag(env, 'MODEL_ALLOW_PRIVATE_ENDPOINTS');
  if (production && modelAllowPrivateEndpoints) {
    throw new ConfigError('MODEL_ALLOW_PRIVATE_ENDPOINTS is for local development and cannot be set when NODE_ENV=production.');
  }
  const toolCaFile = env.TOOL_CA_FILE && env.TOOL_CA_FILE !== '' ? env.TOOL_CA_FILE : undefined;
  if (production && toolCaFile) {
    throw new ConfigError('TOOL_CA_FILE is for local development and tests and cannot be set when NODE_ENV=production.');
  }
  const passwordHashCost = integer(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 20);
  if (production && passwordHashCost < DEFAULT_PASSWORD_HASH_COST) {
    throw new ConfigError(`PASSWORD_HASH_COST below ${DEFAULT_PASSWORD_HASH_COST} is for tests and local development and cannot be set when NODE_ENV=production.`);
  }
  if (toolCaFile && !existsSync(toolCaFile)) throw new ConfigError(`TOOL_CA_FILE points to a missing file: ${toolCaFile}`);

  const secrets = loadSecretsKey(env, production, dataDir);
  const secretsKey = secrets.key;
  // Links in emails and snippets, the OAuth issuer (RFC 8414 wants https) and the console's Secure cookie all
  // name this address: in production it must be the https one people reach.
  if (production && !publicUrl.startsWith('https://')) {
    throw new ConfigError(`PUBLIC_URL must be the service's https:// address when NODE_ENV=production (got "${publicUrl}"${env.PUBLIC_URL ? '' : ', the default'}).`);
  }

  return {
    env: nodeEnv,
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', defaultPoolSize(), 1, 500),
    databaseLimits: databaseLimits(env),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['normal', 'full'] as const, 'normal'),
    redisUrl,
    secretsKey,
    secretsKeyPrevious: loadPreviousSecretsKey(env, secretsKey),
    secretsKeyGenerated: secrets.generated,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    logLevel,
    logFormat,
    toolAllowPrivateEndpoints,
    modelAllowPrivateEndpoints,
    toolCaFile,
    passwordHashCost,
    toolCallTimeoutMs: integer(env, 'TOOL_CALL_TIMEOUT_MS', 15000, 1000, 30000),
    modelTimeoutMs: integer(env, 'MODEL_TIMEOUT_MS', 120000, 1000, 600000),
    http: httpLimits(env),
    sessions: sessionLimits(env),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailFrom(env, publicUrl),
    metrics: metricsConfig(env, host, port),
    webhookDelivery: oneOf(env, 'WEBHOOK_DELIVERY', ['on', 'off'] as const, 'on'),
    notificationDelivery: oneOf(env, 'NOTIFICATION_DELIVERY', ['on', 'off'] as const, 'on'),
  };
}

/** A scrape token is a password: long and random, like the keys the service makes itself. */
const MIN_METRICS_TOKEN_CHARS = 32;

function metricsConfig(env: Env, host: string, mainPort: number): MetricsConfig {
  const rawPort = env.METRICS_PORT;
  const port = rawPort === undefined || rawPort === '' ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535);
  if (port !== undefined && port === mainPort) throw new ConfigError(`METRICS_PORT must differ from PORT (${mainPort}); to serve /metrics on the main port, set METRICS_TOKEN instead.`);
  const token = env.METRICS_TOKEN === undefined || env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN;
  if (token !== undefined && (token.length < MIN_METRICS_TOKEN_CHARS || !/^[\x21-\x7E]+$/.test(token))) {
    throw new ConfigError(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_CHARS} visible ASCII characters (e.g. \`openssl rand -hex 32\`).`);
  }
  return { port, host: env.METRICS_HOST && env.METRICS_HOST !== '' ? env.METRICS_HOST : host, token };
}
