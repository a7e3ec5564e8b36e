import { spawn, spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { runCli as runCommandLine } from '../../src/cli-commands.js';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a test's CLI run: the SQLite file in `dataDir`, never a DATABASE_URL or SWITCHBOARD_PASSWORD
 * from the developer's shell, and passwords hashed at the tests' cost (TEST_PASSWORD_HASH_COST), as in every test app.
 */
function cliEnv(dataDir: string, env: Record<string, string> = {}): Record<string, string> {
  return { NODE_ENV: 'development', LOG_LEVEL: 'silent', PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST), DATABASE_URL: '', ...env, DATA_DIR: dataDir };
}

/**
 * `switchboard …` on the SQLite file in `dataDir`, run in this process through the entry's own runCli
 * (cli-commands.ts) with its own environment, standard input and output: what cli.ts does with the process's.
 * A process costs 3–5 s of CPU to load the code; the suites run the CLI about a hundred times.
 */
export function runCli(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runCliWith(dataDir, {}, ...args);
}

/** The same with standard input (`input`, e.g. for --password-stdin; none: a terminal) and extra environment variables. */
export async function runCliWith(dataDir: string, options: { input?: string; env?: Record<string, string> }, ...args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = options.input !== undefined ? Readable.from([Buffer.from(options.input)]) : Object.assign(Readable.from([]), { isTTY: true });
  const code = await runCommandLine(args, { env: cliEnv(dataDir, options.env), stdin, out: (text) => out.push(`${text}\n`), err: (text) => err.push(`${text}\n`) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const processEnv = (dataDir: string, env: Record<string, string> = {}) => ({ ...process.env, SWITCHBOARD_PASSWORD: undefined, ...cliEnv(dataDir, env) });

/** The CLI as an operator runs it: a real process (src/cli.ts), for what only a process shows (exit status, a pipe). */
export function runCliProcess(dataDir: string, options: { input?: string; env?: Record<string, string> }, ...args: string[]): CliRun {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: processEnv(dataDir, options.env),
    encoding: 'utf8',
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The CLI as a process without blocking this one, so a test can keep load going while it runs (spawnSync would
 * stop the test's event loop). `databaseUrl`: DATABASE_URL for the run (default none: SQLite in `dataDir`).
 */
export function runCliAsync(dataDir: string, options: { databaseUrl?: string }, ...args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: processEnv(dataDir, { DATABASE_URL: options.databaseUrl ?? '' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
