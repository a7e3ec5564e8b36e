import { CLI_AUDIT } from './audit/context.js';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { AppError } from './http/errors.js';
import { DEVELOPER_LIMITS, limitOption, MAX_LIMIT, ORG_LIMITS, type LimitUsage, type TenantKind } from './http/tenant-limits.js';
import type { Services } from './services.js';

/**
 * `switchboard <command>`: operations on the configured database. `runCli` runs one command line with the
 * environment, standard input and output it is given: cli.ts hands it the process's, tests their own.
 *
 * Prints human-readable text, or JSON with --json (errors too, on stderr). Exit status: 0 done,
 * 1 refused (the message says why) or failed, 2 a usage or configuration error. `help`, `--help`
 * and a group alone (`switchboard org`) print usage; database and server modules are imported by
 * the commands that need them, so usage answers at once.
 */

/** What a command line runs with: the process's in cli.ts. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdin: AsyncIterable<Buffer | string> & { isTTY?: boolean };
  /** One line (or several) of standard output. */
  out(text: string): void;
  /** One line (or several) of standard error. */
  err(text: string): void;
}

interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder in usage: `--name <organization>`. */
  value?: string;
  required?: boolean;
  description: string;
}

interface CommandContext {
  config: Config;
  database: Database;
  /** Migrations this run applied before the command (every command migrates first). */
  migrated: string[];
  options: Record<string, string | boolean | undefined>;
  /** The command's positional argument, when it takes one (`org limits <org id>`). */
  argument: string | undefined;
  /** Every service over the database (services.ts), built on first use and closed before the database. */
  services(): Promise<Services>;
}

/** What a command that works on files rather than through the database gets (backup, restore). */
interface FileCommandContext {
  config: Config;
  options: Record<string, string | boolean | undefined>;
  /** The command's one positional argument (`<file>`). */
  argument: string;
}

interface Command {
  summary: string;
  /** A positional argument the command requires: `backup <file>`. */
  argument?: { name: string; description: string };
  options: Record<string, OptionSpec>;
  /** Takes a password: --password, --password-stdin or SWITCHBOARD_PASSWORD, one of them required (`true`) or none (`'optional'`). */
  password?: true | 'optional';
  /** Runs on the migrated database; returns what to print (an object: JSON with --json, lines otherwise). */
  run?(ctx: CommandContext): Promise<Record<string, unknown>>;
  /** Runs without opening the database through openDatabase or migrating it (backup, restore); returns what to print. */
  runOnFiles?(ctx: FileCommandContext): Promise<Record<string, unknown>>;
  /** Runs until SIGTERM or SIGINT (serve). */
  start?(config: Config): Promise<void>;
}

const PASSWORD_ENV = 'SWITCHBOARD_PASSWORD';

const PASSWORD_OPTIONS: Record<string, OptionSpec> = {
  password: { type: 'string', value: 'password', description: 'At least 10 characters, not a common one. On the command line it stays in shell history and shows in the process list: prefer --password-stdin.' },
  'password-stdin': { type: 'boolean', description: `Read the password from standard input (a final newline is dropped). Without either option, ${PASSWORD_ENV} is used.` },
};

const commands: Record<string, Command> = {
  migrate: {
    summary: 'Applies pending database migrations (the server also does this when it starts).',
    options: {},
    run: async ({ migrated }) => ({ applied: migrated }),
  },
  serve: {
    summary: 'Runs the server, as npm start does.',
    options: {},
    start: async (config) => {
      await import('./v8-flags.js');
      const { startServer } = await import('./server.js');
      const server = await startServer(config);
      server.app.log.info(`Switchboard is ready at ${config.publicUrl}`);
      const stop = () => void server.stop().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
  },
  'developer create': {
    summary:
      'Creates a developer account (Developer API) for a person without an organization, who signs in to the console with this email and password. ' +
      'An email that already has a console account is refused (sign in and become a developer there), unless the password given is that account\'s: then it becomes a developer too.',
    options: {
      email: { type: 'string', value: 'email', required: true, description: 'The person\'s email, unique across the console.' },
      ...PASSWORD_OPTIONS,
      name: { type: 'string', value: 'name', required: true, description: 'The developer\'s display name, shown in the catalog.' },
    },
    password: true,
    run: async ({ services, options }) => {
      const { developers } = await services();
      const developer = await developers.createDeveloper({ email: String(options.email), password: String(options.password), name: String(options.name) });
      return { developer };
    },
  },
  'app create': {
    summary: 'Registers an app of a developer; prints its clientId and clientSecret (the secret is shown once).',
    options: {
      developer: { type: 'string', value: 'email', required: true, description: 'The email of the developer who owns the app.' },
      name: { type: 'string', value: 'name', required: true, description: 'The app\'s name.' },
      scopes: { type: 'string', value: 'scopes', description: 'The scopes the app may ask for, space-separated, among tools:read tools:write tools:publish; default all three.' },
    },
    run: async ({ services, options }) => {
      const { developers } = await services();
      const app = await developers.createApp({
        developerEmail: String(options.developer),
        name: String(options.name),
        ...(typeof options.scopes === 'string' ? { scopes: options.scopes } : {}),
      });
      return { clientId: app.clientId, clientSecret: app.clientSecret, name: app.name, scopes: app.scopes, note: 'Store the client secret now: it is shown only once.' };
    },
  },
  'org create': {
    summary: 'Creates an organization with its first operator, the default pipeline and an API key (shown once).',
    options: {
      name: { type: 'string', value: 'organization', required: true, description: 'The organization\'s name.' },
      email: { type: 'string', value: 'operator email', required: true, description: 'The first operator\'s email, unique across organizations.' },
      ...PASSWORD_OPTIONS,
      'operator-name': { type: 'string', value: 'name', description: 'The operator\'s name; default the part of the email before the @.' },
      country: { type: 'string', value: 'code', description: 'Where national phone numbers (without +) are from: an ISO 3166-1 code such as US, GB or FR; default US. Change it later with PATCH /api/org/organization.' },
    },
    password: true,
    run: async ({ services, options }) => {
      const { orgs } = await services();
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
        defaultCountry: created.org.defaultCountry,
        operator: created.operator,
        apiKey: created.apiKey.key,
        note: 'Store the API key now: it is shown only once. Send it as Authorization: Bearer <key> to /api/org/*.',
      };
    },
  },
  'api-key create': {
    summary: 'Creates another API key for an organization, e.g. when its keys were lost or revoked; prints the key (shown once).',
    options: {
      org: { type: 'string', value: 'org id', required: true, description: 'The organization\'s id (org_…), as org create printed it.' },
      name: { type: 'string', value: 'name', description: 'What the key is for; default "CLI key".' },
    },
    run: async ({ services, options }) => {
      const { orgs, apiKeys } = await services();
      const org = await orgs.getOrganization(String(options.org));
      const key = await apiKeys.create(org.id, { name: typeof options.name === 'string' ? options.name : 'CLI key' }, CLI_AUDIT);
      return {
        orgId: org.id,
        id: key.id,
        name: key.name,
        apiKey: key.key,
        note: 'Store the API key now: it is shown only once. Send it as Authorization: Bearer <key> to /api/org/*.',
      };
    },
  },
  'org limits': {
    summary:
      'Shows an organization\'s limits (the most agents, forms, API keys, … it may have at once) and how much of each it uses; with options, sets those first. ' +
      'A create past a limit is refused (409 LIMIT_REACHED); a limit set below what is used stops new ones only, nothing is removed.',
    argument: { name: 'org id', description: 'The organization\'s id (org_…), as org create printed it.' },
    options: limitOptions(ORG_LIMITS),
    run: async ({ services, options, argument }) => {
      const { orgLimits } = await services();
      const orgId = String(argument);
      const changes = limitChanges(ORG_LIMITS, options, 'org limits');
      const limits = Object.keys(changes).length > 0 ? await orgLimits.set(orgId, changes) : await orgLimits.show(orgId);
      return { orgId, limits: withDefaults(ORG_LIMITS, limits) };
    },
  },
  'developer limits': {
    summary: 'Shows a developer\'s limits (the most apps and tools they may have at once) and how much of each they use; with options, sets those first. A limit set below what is used stops new ones only.',
    argument: { name: 'developer', description: 'The developer\'s id (dev_…) or email.' },
    options: limitOptions(DEVELOPER_LIMITS),
    run: async ({ services, options, argument }) => {
      const { developers, developerLimits } = await services();
      const developer = await developers.findDeveloper(String(argument));
      const changes = limitChanges(DEVELOPER_LIMITS, options, 'developer limits');
      const limits = Object.keys(changes).length > 0 ? await developerLimits.set(developer.id, changes) : await developerLimits.show(developer.id);
      return { developerId: developer.id, email: developer.email, limits: withDefaults(DEVELOPER_LIMITS, limits) };
    },
  },
  'user reset-password': {
    summary: 'Sets a new password for a console user locked out without email, and signs them out everywhere. Without a password, prints a generated one.',
    options: {
      email: { type: 'string', value: 'email', required: true, description: 'The user\'s email.' },
      password: { type: 'string', value: 'password', description: 'The new password: at least 10 characters, not a common one. On the command line it stays in shell history: prefer --password-stdin, or let one be generated.' },
      'password-stdin': PASSWORD_OPTIONS['password-stdin']!,
    },
    password: 'optional',
    run: async ({ config, services, options }) => {
      const { operators } = await services();
      const result = await operators.resetPasswordByEmail(String(options.email), typeof options.password === 'string' ? options.password : undefined);
      return {
        userId: result.userId,
        email: result.email,
        ...(result.generated ? { password: result.password } : {}),
        note: `${result.generated ? 'Give this password to the user; they can change it in the console\'s settings. ' : ''}Every session of the user has ended. Sign in at ${config.publicUrl}/app/signin.`,
      };
    },
  },
  demo: {
    summary: 'Seeds a demo organization (an operator, credentials printed; a branded agent; a custom select field; a form using it with a few submissions and opportunities) and a tool developer (credentials printed) with an app and a tool the demo agent uses. Run again for another.',
    options: {},
    run: async ({ services }) => {
      const { seedDemo } = await import('./demo.js');
      return seedDemo(await services());
    },
  },
  'secrets rotate': {
    summary: 'Re-encrypts every stored tool credential and model provider key under SECRETS_KEY, reading values still under the old key with SECRETS_KEY_PREVIOUS. Run it after setting both; then drop SECRETS_KEY_PREVIOUS.',
    options: {},
    run: async ({ config, services }) => {
      const result = await (await services()).credentialRotation.rotate();
      if (result.failed.length > 0) {
        const which = result.failed.slice(0, 5).map((f) => `${f.id} ${f.field}`).join(', ');
        throw new AppError(
          'INTERNAL_ERROR',
          `${result.reencrypted} value(s) re-encrypted under key ${result.keyId}, but ${result.failed.length} could not be read (${which}${result.failed.length > 5 ? ', …' : ''}): ` +
            (config.secretsKeyPrevious ? 'they are under neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS.' : 'set SECRETS_KEY_PREVIOUS to the key they were sealed under and run it again.'),
        );
      }
      return { reencrypted: result.reencrypted, keyId: result.keyId, note: 'Every credential is now under SECRETS_KEY; SECRETS_KEY_PREVIOUS can be removed.' };
    },
  },
  backup: {
    summary: 'Copies the SQLite database (DATA_DIR/switchboard.db) into a new file, mode 0600, while the server runs: a consistent copy of everything committed when it started. Not for PostgreSQL (use pg_dump).',
    argument: { name: 'file', description: 'Where to write the backup; its directory must exist.' },
    options: {
      force: { type: 'boolean', description: 'Replace the file if it exists.' },
    },
    runOnFiles: async ({ config, options, argument }) => {
      refuseOnPostgres(config, 'backup');
      const [{ backupSqlite }, { sqliteFileIn }] = await Promise.all([import('./db/backup.js'), import('./db/database.js')]);
      const result = await fileRefusals(() => backupSqlite(sqliteFileIn(config.dataDir), argument, { force: options.force === true }));
      return { ...result, note: `Keep it off this machine, and private: it holds contacts' personal data. switchboard restore ${result.file} puts it back.` };
    },
  },
  restore: {
    summary:
      'Puts a backup in place of the SQLite database, once checked (PRAGMA integrity_check, a Switchboard database not newer than this build). Refused while the server (or any other process) has the database open: stop it first. ' +
      'The database replaced is kept beside it as switchboard.db.before-restore-<time>. Not for PostgreSQL (use pg_restore).',
    argument: { name: 'file', description: 'The backup to restore, as switchboard backup wrote it.' },
    options: {},
    runOnFiles: async ({ config, argument }) => {
      refuseOnPostgres(config, 'restore');
      const [{ restoreSqlite }, { sqliteFileIn }, { migrations }] = await Promise.all([import('./db/backup.js'), import('./db/database.js'), import('./db/migrations/index.js')]);
      const result = await fileRefusals(() => restoreSqlite(argument, sqliteFileIn(config.dataDir), { migrations: Object.keys(migrations), now: new Date() }));
      const pending = result.pending.length > 0 ? ` It applies the backup's ${result.pending.length} missing migration(s) as it starts.` : '';
      return { ...result, note: `Start the server.${pending}${result.previous ? ` Once it serves the restored data, ${result.previous} can be deleted.` : ''}` };
    },
  },
};

/** One option per limit of a kind of tenant: `--agent-keys-per-agent <n>`. */
function limitOptions(kind: TenantKind<string>): Record<string, OptionSpec> {
  return Object.fromEntries(
    Object.entries(kind.limits).map(([name, limit]) => [
      limitOption(name),
      { type: 'string', value: 'n', description: `The most ${limit.noun}${limit.holder ? ' per agent' : ''}: 0 to ${MAX_LIMIT.toLocaleString('en-US')}, or "default" (${limit.default}).` } satisfies OptionSpec,
    ]),
  );
}

/** The limits a command line sets: a number each, or null for "default". */
function limitChanges<K extends string>(kind: TenantKind<K>, options: CommandContext['options'], command: string): Partial<Record<K, number | null>> {
  const changes: Partial<Record<K, number | null>> = {};
  for (const name of Object.keys(kind.limits) as K[]) {
    const value = options[limitOption(name)];
    if (typeof value !== 'string') continue;
    if (value === 'default') changes[name] = null;
    else if (/^\d+$/.test(value)) changes[name] = Number(value);
    else throw usageError(`--${limitOption(name)} takes a whole number or "default", not "${value}".`, command);
  }
  return changes;
}

/** Each limit with its default beside it, as the CLI prints them. */
function withDefaults<K extends string>(kind: TenantKind<K>, limits: Record<K, LimitUsage>): Record<K, LimitUsage & { default: number }> {
  return Object.fromEntries((Object.keys(kind.limits) as K[]).map((name) => [name, { ...limits[name], default: kind.limits[name].default }])) as Record<K, LimitUsage & { default: number }>;
}

/** backup and restore copy the SQLite file; PostgreSQL has its own tools, which the refusal names. */
function refuseOnPostgres(config: Config, command: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return;
  throw new CliFailure(
    command === 'backup'
      ? 'switchboard backup copies the embedded SQLite database, and DATABASE_URL points at PostgreSQL: back it up with pg_dump (e.g. pg_dump --format=custom), or with continuous WAL archiving for point-in-time recovery (README, Backups).'
      : 'switchboard restore replaces the embedded SQLite database, and DATABASE_URL points at PostgreSQL: restore a pg_dump archive with pg_restore, or recover to a point in time from a base backup and archived WAL (README, Backups).',
    'NOT_SUPPORTED',
    1,
  );
}

/** A BackupRefusal (db/backup.ts) as the CLI reports every refusal: its code, exit status 1. */
async function fileRefusals<T>(run: () => Promise<T>): Promise<T> {
  const { BackupRefusal } = await import('./db/backup.js');
  try {
    return await run();
  } catch (error) {
    if (error instanceof BackupRefusal) throw new AppError(error.code, error.message);
    throw error;
  }
}

/**
 * The services a command uses: the server's own wiring (services.ts), without Redis (a command's writes,
 * new orgs and keys, re-sealed credentials, a reset password, change nothing a node's cache holds),
 * without a mailer (the CLI prints what it would send) and without the expiry purger. Logs nothing.
 */
async function commandServices(config: Config, database: Database): Promise<Services> {
  const [{ createServices }, { pino }] = await Promise.all([import('./services.js'), import('pino')]);
  return createServices(config, { database, log: pino({ level: 'silent' }), redis: false, mailer: null });
}

/** Required options, the password counting as given when it comes from stdin or the environment. */
function isRequired(option: string, spec: OptionSpec, command: Command): boolean {
  return spec.required === true || (option === 'password' && command.password === true);
}

/** `developer`, `app`, `org`, `api-key`: the first word of two-word commands. */
const groups = new Set(Object.keys(commands).filter((name) => name.includes(' ')).map((name) => name.split(' ')[0]!));

// ── Usage ──

function optionLabel(name: string, spec: OptionSpec): string {
  return spec.type === 'string' ? `--${name} <${spec.value ?? name}>` : `--${name}`;
}

function synopsis(name: string, command: Command): string {
  const parts = [`switchboard ${name}`];
  if (command.argument) parts.push(`<${command.argument.name}>`);
  for (const [option, spec] of Object.entries(command.options)) {
    if (option === 'password-stdin') continue;
    if (option === 'password') parts.push(command.password === 'optional' ? `[${optionLabel('password', spec)} | --password-stdin]` : `(${optionLabel('password', spec)} | --password-stdin)`);
    else parts.push(spec.required ? optionLabel(option, spec) : `[${optionLabel(option, spec)}]`);
  }
  return parts.join(' ');
}

function describeCommand(name: string, command: Command): string {
  const labels = [
    ...(command.argument ? [[`<${command.argument.name}>`, command.argument.description] as const] : []),
    ...Object.entries(command.options).map(([option, spec]) => [optionLabel(option, spec), spec.description] as const),
  ];
  const width = Math.max(0, ...labels.map(([label]) => label.length));
  return [`  ${synopsis(name, command)}`, `      ${command.summary}`, ...labels.map(([label, text]) => `      ${label.padEnd(width)}  ${text}`)].join('\n');
}

const FOOTER = [
  'Every command takes --json: the result as JSON on stdout, an error as {"success":false,"error":…,"code":…} on stderr.',
  'Exit status: 0 done, 1 refused or failed, 2 a usage or configuration error.',
  `Passwords: printf '%s\\n' "$PASSWORD" | switchboard … --password-stdin, or set ${PASSWORD_ENV}.`,
].join('\n');

/** The commands a topic covers: all of them, a group's (`org`) or one (`org create`). */
function commandsOf(topic?: string): string[] {
  if (topic !== undefined && commands[topic]) return [topic];
  return Object.keys(commands).filter((name) => topic === undefined || name.startsWith(`${topic} `));
}

/** Usage with every option described (help), or `brief`: one line per command (after a mistake). */
function usage(topic?: string, brief = false): string {
  const command = topic !== undefined ? commands[topic] : undefined;
  if (topic !== undefined && command) return `Usage:\n${describeCommand(topic, command)}${brief ? '' : `\n\n${FOOTER}`}`;
  const names = commandsOf(topic);
  const head = topic === undefined ? 'Usage: switchboard <command> [options]' : `Usage: switchboard ${topic} <command> [options]`;
  if (brief) return [head, ...names.map((name) => `  ${synopsis(name, commands[name]!)}`), '', `switchboard help ${topic ?? '[<command>]'} describes the options.`].join('\n');
  return [head, '', names.map((name) => describeCommand(name, commands[name]!)).join('\n\n'), '', FOOTER].join('\n');
}

/** The same, as data for --json. */
function usageJson(topic?: string): Record<string, unknown> {
  return {
    commands: commandsOf(topic).map((name) => {
      const command = commands[name]!;
      return {
        command: name,
        summary: command.summary,
        usage: synopsis(name, command),
        ...(command.argument ? { argument: { name: command.argument.name, description: command.argument.description } } : {}),
        options: Object.entries(command.options).map(([option, spec]) => ({
          name: `--${option}`,
          ...(spec.type === 'string' ? { value: spec.value ?? option } : {}),
          required: isRequired(option, spec, command),
          description: spec.description,
        })),
      };
    }),
  };
}

// ── Output ──

function printHuman(value: unknown, out: CliIo['out'], indent = ''): void {
  if (value === null || typeof value !== 'object') {
    out(`${indent}${String(value)}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      out(`${indent}${key}:`);
      printHuman(item, out, `${indent}  `);
    } else {
      out(`${indent}${key}: ${Array.isArray(item) ? item.join(', ') || '(none)' : String(item)}`);
    }
  }
}

/**
 * A failure: `switchboard: <message>` on stderr with the usage that helps, or with --json one line
 * `{"success":false,"error","code","field"?,"usage"?}` (`usage`: the command's synopsis).
 */
class CliFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number,
    readonly extra: { field?: string | undefined; usage?: { topic?: string | undefined } } = {},
  ) {
    super(message);
  }
}

/** A command line that names no command, an unknown one or wrong options: exit 2 with the usage of what was meant. */
const usageError = (message: string, topic?: string) => new CliFailure(message, 'USAGE_ERROR', 2, { usage: { topic } });

function report(failure: CliFailure, json: boolean, err: CliIo['err']): number {
  const { field, usage: shown } = failure.extra;
  const topic = shown?.topic;
  if (json) {
    const command = topic !== undefined ? commands[topic] : undefined;
    const synopsisOf = command && topic !== undefined ? { usage: synopsis(topic, command) } : {};
    err(JSON.stringify({ success: false, error: failure.message, code: failure.code, ...(field !== undefined ? { field } : {}), ...synopsisOf }));
  } else {
    err(`switchboard: ${failure.message}${shown ? `\n\n${usage(topic, true)}` : ''}`);
  }
  return failure.exitCode;
}

// ── Running ──

/** The command a list of words names: `migrate`, `org create`; or the group they start with. */
function resolve(words: string[]): { name?: string; group?: string } {
  const [first = '', second] = words;
  if (commands[first]) return { name: first };
  if (second !== undefined && commands[`${first} ${second}`]) return { name: `${first} ${second}` };
  return groups.has(first) ? { group: first } : {};
}

function printHelp(words: string[], json: boolean, out: CliIo['out']): number {
  const { name, group } = resolve(words);
  const topic = name ?? group;
  if (words.length > 0 && (topic === undefined || words.length > topic.split(' ').length)) {
    throw usageError(`there is no command "${words.join(' ')}".`, group);
  }
  if (json) out(JSON.stringify(usageJson(topic), null, 2));
  else out(usage(topic));
  return 0;
}

async function readStdin(stdin: CliIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Fills `values.password` from --password, --password-stdin or SWITCHBOARD_PASSWORD, in that order. */
async function resolvePassword(values: Record<string, string | boolean | undefined>, name: string, io: CliIo): Promise<void> {
  if (values['password-stdin'] !== true) {
    const fromEnv = io.env[PASSWORD_ENV];
    if (values.password === undefined && fromEnv !== undefined && fromEnv !== '') values.password = fromEnv;
    return;
  }
  if (values.password !== undefined) throw usageError('give --password or --password-stdin, not both.', name);
  if (io.stdin.isTTY) throw usageError(`--password-stdin reads the password from a pipe: printf '%s\\n' "$PASSWORD" | switchboard ${name} … --password-stdin`, name);
  const password = await readStdin(io.stdin);
  if (password === '') throw usageError('--password-stdin read no password from standard input.', name);
  values.password = password;
}

/** A command's refusal (an AppError) as the CLI reports it: its message and code, exit code 1. */
function asCliFailure(error: unknown): unknown {
  return error instanceof AppError ? new CliFailure(error.message, error.code, 1, { field: error.field }) : error;
}

async function main(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  // Command words come first; --json and --help may also precede them.
  let start = 0;
  while (start < argv.length && ['--json', '--help', '-h'].includes(argv[start]!)) start++;
  let end = start;
  while (end < argv.length && !argv[end]!.startsWith('-')) end++;
  const words = argv.slice(start, end);
  const rest = [...argv.slice(0, start), ...argv.slice(end)];

  if (words[0] === 'help') return printHelp(words.slice(1), json, io.out);
  if (wantsHelp) return printHelp(words, json, io.out);
  if (words.length === 0) throw usageError('name a command.');
  const { name, group } = resolve(words);
  if (name === undefined) {
    if (group !== undefined && words.length === 1) throw usageError(`"switchboard ${group}" needs a command.`, group);
    throw usageError(`unknown command "${words.join(' ')}".`, group);
  }
  const command = commands[name]!;
  const printResult = (result: unknown) => {
    if (json) io.out(JSON.stringify(result, null, 2));
    else printHuman(result, io.out);
  };
  const positionals = words.slice(name.split(' ').length);

  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(Object.entries(command.options).map(([option, spec]) => [option, { type: spec.type }]));
    const parsed = parseArgs({ args: rest, options: { ...options, json: { type: 'boolean' } }, allowPositionals: command.argument !== undefined, strict: true });
    values = parsed.values;
    positionals.push(...parsed.positionals);
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error), name);
  }
  const extra = positionals[command.argument ? 1 : 0];
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}".`, name);
  if (command.argument && positionals[0] === undefined) throw usageError(`missing <${command.argument.name}>.`, name);
  if (command.password) await resolvePassword(values, name, io);
  const missing = Object.entries(command.options)
    .filter(([option, spec]) => values[option] === undefined && isRequired(option, spec, command))
    .map(([option]) => (option === 'password' ? `--password (or --password-stdin, or ${PASSWORD_ENV})` : `--${option}`));
  if (missing.length > 0) throw usageError(`missing ${missing.join(', ')}.`, name);
  if (typeof values.password === 'string') {
    // The console's rule for every password a person signs in with: long enough and not a common one.
    const { createPasswordPolicy, loadCommonPasswords } = await import('./lib/passwords.js');
    const refusal = createPasswordPolicy(loadCommonPasswords()).refusal(values.password);
    if (refusal !== undefined) throw new AppError('VALIDATION_ERROR', refusal, { field: 'password' });
  }

  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliFailure(`configuration error: ${error.message}`, 'CONFIG_ERROR', 2);
    throw error;
  }
  if (command.start) {
    await command.start(config);
    return -1;
  }
  if (command.runOnFiles) {
    try {
      printResult(await command.runOnFiles({ config, options: values, argument: positionals[0]! }));
      return 0;
    } catch (error) {
      throw asCliFailure(error);
    }
  }
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([import('./db/database.js'), import('./db/migrate.js')]);
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteSynchronous: config.sqliteSynchronous, limits: config.databaseLimits });
  let services: Promise<Services> | undefined;
  try {
    const { applied } = await migrateToLatest(database.migrationDb);
    printResult(await command.run!({ config, database, migrated: applied, options: values, argument: positionals[0], services: () => (services ??= commandServices(config, database)) }));
    return 0;
  } catch (error) {
    throw asCliFailure(error);
  } finally {
    // Services that failed to build have nothing open; the command's error is the one to report.
    await services?.then((built) => built.close(), () => undefined);
    await database.close();
  }
}

/**
 * Runs one command line: its exit status (0 done, 1 refused or failed, 2 usage or configuration), or -1 for a
 * command that keeps running (serve). Every failure is reported on `io.err`, none is thrown.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await main(argv, io);
  } catch (error) {
    return report(error instanceof CliFailure ? error : new CliFailure(error instanceof Error ? error.message : String(error), 'INTERNAL_ERROR', 1), json, io.err);
  }
}
