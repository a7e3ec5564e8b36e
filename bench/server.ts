import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

/** Switchboard as `npm start` runs it, configured by the environment the benchmark passes. */
const server = await startServer(loadConfig());
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
