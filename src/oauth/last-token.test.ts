import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TestClock, testDialects } from '../../test/support/context.js';
import { createDeveloperWithApp, type DeveloperWithApp } from '../../test/support/factories.js';
import type { Database } from '../db/database.js';
import { createAppsRepo } from '../developers/apps-repo.js';
import { createOAuthRepo } from './repo.js';
import { createOAuthService, type OAuthService } from './service.js';

/**
 * The token endpoint stays one write per request (its token row) but once a minute per app, when it
 * notes the app's last token time: the row it reads to authenticate the client already holds that time,
 * so a client taking a token per request costs no second write, and no second read, within the minute.
 */
describe.each(testDialects())('last token time, as the token endpoint writes it (%s)', (dialect) => {
  let database: Database;
  let dispose: () => Promise<void>;
  const clock = new TestClock();
  const notes: string[] = [];
  let oauth: OAuthService;
  let dev: DeveloperWithApp;

  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase(dialect));
    const repo = createOAuthRepo(database.db);
    const appsRepo = createAppsRepo(database.db);
    oauth = createOAuthService({
      repo,
      clock,
      // The real write (the owner of `apps`), counted.
      apps: { noteTokenIssued: async (appId, at, staleBefore) => {
        notes.push(at);
        await appsRepo.noteTokenIssued(appId, at, staleBefore);
      } },
    });
    dev = await createDeveloperWithApp(database, clock);
  });
  afterAll(async () => dispose());

  it('writes last_token_at on the first token, then not again until a minute has passed', async () => {
    const credentials = { clientId: dev.app.clientId, clientSecret: dev.app.clientSecret, method: 'client_secret_post' as const };
    const first = clock.now().toISOString();
    for (let i = 0; i < 5; i++) {
      await oauth.issueToken(credentials, undefined);
      clock.advance(11_000);
    }
    // 0, 11, 22, 33, 44 s: one write. The sixth, at 55 s, still none; the seventh, at 66 s, the second.
    expect(notes).toEqual([first]);
    await oauth.issueToken(credentials, undefined);
    expect(notes).toHaveLength(1);
    clock.advance(11_000);
    await oauth.issueToken(credentials, undefined);
    expect(notes).toEqual([first, clock.now().toISOString()]);
    const row = await database.db.selectFrom('apps').select('last_token_at').where('id', '=', dev.app.clientId).executeTakeFirstOrThrow();
    expect(row.last_token_at).toBe(clock.now().toISOString());
    const tokens = await database.db.selectFrom('access_tokens').select('token_hash').where('app_id', '=', dev.app.clientId).execute();
    expect(tokens).toHaveLength(7);
  });
});
