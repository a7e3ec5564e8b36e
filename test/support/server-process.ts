import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './net.js';

/**
 * The real server (src/main.ts through tsx) in a child process, so that an uncaught exception
 * visibly ends it: the fault tests check it is still running after each fault.
 */
export interface ServerProcess {
  url: string;
  /** Set once the process has ended, with how. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Everything it wrote (JSON log lines, and anything else on stderr). */
  output(): string;
  /** Sends a signal now (`SIGKILL` for a crash, `SIGSTOP`…); `ended` resolves when the process is gone. */
  signal(name: NodeJS.Signals): void;
  ended: Promise<void>;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

export async function startServerProcess(env: Record<string, string>, readyWithinMs = 30_000): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    // NODE_OPTIONS passes on, as to any process: scripts/node24.mjs loads its better-sqlite3 build through it.
    env: { PATH: process.env.PATH ?? '', ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}), HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (exited) throw new Error(`the server exited before it was ready (${JSON.stringify(exited)}):\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${readyWithinMs} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    exit: () => exited,
    output: () => output,
    signal: (name) => void child.kill(name),
    ended,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      await ended;
    },
  };
}
