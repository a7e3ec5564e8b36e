import pino from 'pino';
import { buildApp } from './app.js';
import type { App } from './http/app-type.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { chooseLogFormat, logOutput } from './log-output.js';

export interface RunningServer {
  app: App;
  database: Database;
  url: string;
  stop(): Promise<void>;
}

/**
 * Opens the database, applies migrations, and serves until stopped. Logs go to standard output, as JSON or, for a
 * person at a terminal in development, pretty (log-output.ts; `stdoutIsTTY` is the process's own unless given).
 */
export async function startServer(config: Config, options: { stdoutIsTTY?: boolean } = {}): Promise<RunningServer> {
  const output = await logOutput(chooseLogFormat(config, options.stdoutIsTTY ?? process.stdout.isTTY === true));
  // The database is opened before the app and its logger exist: its background work logs through a logger of its own.
  const log = output.stream ? pino({ level: config.logLevel }, output.stream) : pino({ level: config.logLevel });
  if (output.notice) log.warn(output.notice);
  if (config.secretsKeyGenerated) {
    log.warn(`SECRETS_KEY is not set: generated a key for tool credentials in ${config.secretsKeyGenerated} (mode 0600). Keep that file; production requires SECRETS_KEY.`);
  }
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgPoolSize: config.databasePoolSize, limits: config.databaseLimits, sqliteSynchronous: config.sqliteSynchronous, log });
  await migrateToLatest(database.migrationDb);
  const app = await buildApp({ config, database, ...(output.stream ? { logStream: output.stream } : {}) });
  const address = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | undefined;
  return {
    app,
    database,
    url: address,
    // Fastify stops accepting connections, answers 503 to new requests on open ones, and waits for in-flight requests.
    stop: () => (stopping ??= app.close().then(() => database.close())),
  };
}
