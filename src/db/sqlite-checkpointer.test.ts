import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

describe('SQLite WAL checkpoints on a worker thread', () => {
  it('move committed pages into the database file without the writer doing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-wal-'));
    const file = join(dir, 'switchboard.db');
    const database = openDatabase({ sqliteFile: file });
    try {
      await migrateToLatest(database.db);
      const now = new Date().toISOString();
      await database.db.insertInto('orgs').values({ id: 'org_wal', name: 'WAL', default_country: 'US', created_at: now }).execute();
      const before = statSync(file).size;
      // About 500 WAL frames: under SQLite's default autocheckpoint (1,000 pages), so only the
      // worker can have moved them into the database file.
      for (let i = 0; i < 100; i++) {
        await database.db
          .insertInto('contacts')
          .values({ id: `ct_wal${i}`, org_id: 'org_wal', email: `p${i}@example.com`, phone: null, name: 'x'.repeat(500), company: null, source: 'api', custom: '{}', created_at: now, updated_at: now })
          .execute();
      }
      let after = statSync(file).size;
      for (let waited = 0; after <= before && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = statSync(file).size;
      }
      expect(after).toBeGreaterThan(before);
      expect(await database.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 100 });
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
