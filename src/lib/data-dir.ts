import { mkdirSync } from 'node:fs';

/**
 * Creates DATA_DIR, and any missing parent, readable by this user only: it holds the
 * database (contacts' personal data) and, in development, secrets.key. A directory that
 * already exists keeps the permissions its owner gave it.
 */
export function makeDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
