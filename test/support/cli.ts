import { spawnSync } from 'node:child_process';

/**
 * The `switchboard` CLI as an operator runs it: a real process on the SQLite file in
 * `dataDir`. DATABASE_URL is cleared so a developer's own setting can never be touched.
 */
export function runCli(dataDir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: '' },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
