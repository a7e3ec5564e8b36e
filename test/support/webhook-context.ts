import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/http/app-type.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database, Dialect } from '../../src/db/database.js';
import type { MailMessage, Mailer } from '../../src/lib/mailer.js';
import type { HostResolver } from '../../src/net/resolver.js';
import { createServices, type Services } from '../../src/services.js';
import { transactOn } from '../../src/repos.js';
import { dispatchOutbox } from '../../src/webhooks/dispatch.js';
import { createTestDatabase, TEST_ENV, TestClock } from './context.js';

/**
 * A test app whose services the test holds (the webhook worker, to deliver by hand on a TestClock), with a
 * recording mailer and every log line of the app and the services kept in `lines`.
 */
export interface WebhookTestContext {
  dialect: Dialect;
  config: Config;
  database: Database;
  app: App;
  services: Services;
  clock: TestClock;
  mail: MailMessage[];
  lines: string[];
  /** Moves everything the outbox holds into events and deliveries, as a node's worker does first on each poll. */
  dispatch(): Promise<void>;
  close(): Promise<void>;
}

export async function createWebhookTestContext(dialect: Dialect, options: { env?: Record<string, string>; resolveHost: HostResolver; database?: { database: Database; dispose(): Promise<void> } }): Promise<WebhookTestContext> {
  const { database, dispose } = options.database ?? (await createTestDatabase(dialect));
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-webhooks-'));
  const config = loadConfig({ ...TEST_ENV, LOG_LEVEL: 'trace', DATA_DIR: dataDir, ...options.env });
  const clock = new TestClock();
  const lines: string[] = [];
  const logStream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  const mail: MailMessage[] = [];
  const mailer: Mailer = { send: async (message) => void mail.push(message), close: () => {} };
  const services = await createServices(config, { database, log: pino({ level: 'trace' }, logStream), clock, resolveHost: options.resolveHost, mailer, redis: false });
  const app = await buildApp({ config, database, clock, services, logStream });
  await app.ready();
  return {
    dialect, config, database, app, services, clock, mail, lines,
    dispatch: async () => {
      while ((await dispatchOutbox(transactOn(database.db))) > 0);
    },
    close: async () => {
      await app.close();
      await services.close();
      await dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
