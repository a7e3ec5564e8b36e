#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { AppError } from './http/errors.js';
import { systemClock } from './lib/clock.js';
import { createAccountsRepo } from './accounts/repo.js';
import { createAccountsService } from './accounts/service.js';
import { createStandaloneOrgsService } from './app.js';
import { startServer } from './server.js';

/**
 * `switchboard <command>`: operations on the configured database.
 * Prints human-readable text, or JSON with --json; exits non-zero with a message on error.
 */
interface CommandContext {
  config: Config;
  database: Database;
  options: Record<string, string | boolean | undefined>;
}

interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  required?: string[];
  /** Returns what to print: an object (JSON with --json, lines otherwise). */
  run(ctx: CommandContext): Promise<Record<string, unknown>>;
}

const commands: Record<string, Command> = {
  migrate: {
    usage: 'switchboard migrate',
    options: {},
    run: async ({ database }) => ({ applied: (await migrateToLatest(database.db)).applied }),
  },
  'developer create': {
    usage: 'switchboard developer create --email <email> --password <password> --name <name>',
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
    required: ['email', 'password', 'name'],
    run: async ({ database, options }) => {
      const accounts = createAccountsService({ repo: createAccountsRepo(database.db), clock: systemClock });
      const developer = await accounts.createDeveloper({ email: String(options.email), password: String(options.password), name: String(options.name) });
      return { developer };
    },
  },
  'app create': {
    usage: 'switchboard app create --developer <email> --name <name> [--scopes "tools:read tools:write tools:publish"]',
    options: { developer: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } },
    required: ['developer', 'name'],
    run: async ({ database, options }) => {
      const accounts = createAccountsService({ repo: createAccountsRepo(database.db), clock: systemClock });
      const app = await accounts.createApp({
        developerEmail: String(options.developer),
        name: String(options.name),
        ...(typeof options.scopes === 'string' ? { scopes: options.scopes } : {}),
      });
      return { clientId: app.clientId, clientSecret: app.clientSecret, name: app.name, scopes: app.scopes, note: 'Store the client secret now: it is shown only once.' };
    },
  },
  'org create': {
    usage: 'switchboard org create --name <organization> --email <operator email> --password <password> [--operator-name <name>] [--country <ISO code, default US>]',
    options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, 'operator-name': { type: 'string' }, country: { type: 'string' } },
    required: ['name', 'email', 'password'],
    run: async ({ database, options }) => {
      const orgs = createStandaloneOrgsService(database.db, systemClock);
      const created = await orgs.createOrganization({
        name: String(options.name),
        email: String(options.email),
        password: String(options.password),
        ...(typeof options['operator-name'] === 'string' ? { operatorName: options['operator-name'] } : {}),
        ...(typeof options.country === 'string' ? { defaultCountry: options.country } : {}),
      });
      return {
        orgId: created.org.id,
        name: created.org.name,
        operator: created.operator,
        apiKey: created.apiKey.key,
        note: 'Store the API key now: it is shown only once. Send it as Authorization: Bearer <key> to /api/org/*.',
      };
    },
  },
};

function printHuman(value: unknown, indent = ''): void {
  if (value === null || typeof value !== 'object') {
    console.log(`${indent}${String(value)}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      console.log(`${indent}${key}:`);
      printHuman(item, `${indent}  `);
    } else {
      console.log(`${indent}${key}: ${Array.isArray(item) ? item.join(', ') || '(none)' : String(item)}`);
    }
  }
}

function help(): string {
  return ['Usage:', '  switchboard serve', ...Object.values(commands).map((c) => `  ${c.usage}`), '', 'Add --json for machine-readable output.'].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  if (argv.includes('--help') || argv.includes('-h') || words.length === 0) {
    console.log(help());
    return words.length === 0 && !argv.includes('--help') && !argv.includes('-h') ? 2 : 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`switchboard: configuration error: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (words[0] === 'serve') {
    const server = await startServer(config);
    server.app.log.info(`Switchboard is ready at ${config.publicUrl}`);
    const stop = () => void server.stop().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return -1;
  }
  const name = words.length >= 2 && commands[`${words[0]} ${words[1]}`] ? `${words[0]} ${words[1]}` : String(words[0]);
  const command = commands[name];
  if (!command) {
    console.error(`switchboard: unknown command "${words.join(' ')}".\n\n${help()}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv.slice(name.split(' ').length), options: { ...command.options, json: { type: 'boolean' } }, allowPositionals: false, strict: true });
  } catch (error) {
    console.error(`switchboard: ${error instanceof Error ? error.message : String(error)}\nUsage: ${command.usage}`);
    return 2;
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const missing = (command.required ?? []).filter((option) => values[option] === undefined);
  if (missing.length > 0) {
    console.error(`switchboard: missing ${missing.map((m) => `--${m}`).join(', ')}.\nUsage: ${command.usage}`);
    return 2;
  }
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
    const result = await command.run({ config, database, options: values });
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else printHuman(result);
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`switchboard: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
