// First: V8 settings that must hold before any of the app's code runs (v8-flags.ts says why).
import './v8-flags.js';
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`switchboard: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const server = await startServer(config);
  server.app.log.info(`Switchboard is ready at ${config.publicUrl} (API reference: ${config.publicUrl}/docs)`);

  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`switchboard: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
