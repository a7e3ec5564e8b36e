import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteSynchronous } from './database.js';

describe('openDatabase on SQLite', () => {
  // PRAGMA synchronous reads 1 for NORMAL and 2 for FULL.
  it.each([
    [undefined, 1],
    ['normal', 1],
    ['full', 2],
  ] as const)('sets synchronous from sqliteSynchronous=%s', async (sqliteSynchronous: SqliteSynchronous | undefined, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-sync-'));
    const database = openDatabase({ sqliteFile: join(dir, 'switchboard.db'), ...(sqliteSynchronous ? { sqliteSynchronous } : {}) });
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
      expect(rows[0]?.synchronous).toBe(expected);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
