import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Another process holding SQLite's write lock on `file` (BEGIN IMMEDIATE), as a CLI command or a
 * second server on the same file would, until `release()` (which rolls its transaction back).
 */
export interface SqliteLockHolder {
  release(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

const HOLDER = `
const SQLite = require('better-sqlite3');
const db = new SQLite(process.argv[1]);
db.exec('begin immediate');
process.stdout.write('locked\\n');
process.stdin.resume();
process.stdin.on('end', () => { db.exec('rollback'); db.close(); process.exit(0); });
`;

export async function holdSqliteWriteLock(file: string): Promise<SqliteLockHolder> {
  const child = spawn(process.execPath, ['-e', HOLDER, file], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)));
  });
  return {
    release: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
