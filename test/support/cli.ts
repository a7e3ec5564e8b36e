import { spawn, spawnSync } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The `switchboard` CLI as an operator runs it: a real process on the SQLite file in
 * `dataDir`. DATABASE_URL is cleared so a developer's own setting can never be touched,
 * and SWITCHBOARD_PASSWORD so a password in the developer's shell never reaches a test.
 */
export function runCli(dataDir: string, ...args: string[]): CliRun {
  return runCliWith(dataDir, {}, ...args);
}

/** The same with standard input (`input`, e.g. for --password-stdin) and extra environment variables. */
export function runCliWith(dataDir: string, options: { input?: string; env?: Record<string, string> }, ...args: string[]): CliRun {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, SWITCHBOARD_PASSWORD: undefined, ...options.env, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: '' },
    encoding: 'utf8',
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The CLI without blocking this process, so a test can keep load going while it runs (spawnSync would
 * stop the test's event loop). `databaseUrl`: DATABASE_URL for the run (default none: SQLite in `dataDir`).
 */
export function runCliAsync(dataDir: string, options: { databaseUrl?: string }, ...args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, SWITCHBOARD_PASSWORD: undefined, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: options.databaseUrl ?? '' },
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
