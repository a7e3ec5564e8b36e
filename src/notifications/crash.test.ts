import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServerDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { startServerProcess } from '../../test/support/server-process.js';
import { parseMail, startSmtp } from '../../test/support/smtp.js';

/**
 * `kill -9` between a submission's commit and its email neither loses nor repeats the notice: the real server
 * (`src/main.ts`) takes a submission with its notification sending off (NOTIFICATION_DELIVERY=off: the notice is
 * queued with the lead, nothing is sent), is killed, and a new server on the same database sends it: exactly one
 * email arrives at the SMTP server on loopback.
 */
describe.each(testDialects())('kill -9 between the commit and the send on %s', (dialect) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it('a restarted server sends the notice once', async () => {
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-notify-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { database, url: databaseUrl, dispose } = await createServerDatabase(dialect, dataDir);
    cleanups.push(dispose);
    const org = await createOrgWithKey(database, new TestClock());
    if (dialect === 'sqlite') await database.close();

    const env = { ...TEST_ENV, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, SMTP_URL: smtp.url };
    const first = await startServerProcess({ ...env, NOTIFICATION_DELIVERY: 'off' }, 45_000);
    cleanups.push(() => first.signal('SIGKILL'));
    const form = await fetch(`${first.url}/api/org/forms`, {
      method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: `crash-${Date.now().toString(36)}`, title: 'Crash course', consentText: 'I agree.' }),
    });
    expect(form.status).toBe(201);
    const { slug } = ((await form.json()) as { data: { slug: string } }).data;
    const submitted = await fetch(`${first.url}/api/public/forms/${slug}/submit`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ consentVersion: '1', email: 'survivor@example.com' }),
    });
    expect(submitted.status).toBe(200);
    // Committed and answered; nothing sent yet. Then the crash.
    expect(smtp.received.length).toBe(0);
    first.signal('SIGKILL');
    await first.ended;
    expect(first.exit()?.signal).toBe('SIGKILL');

    const second = await startServerProcess(env, 45_000);
    cleanups.push(() => second.stop());
    const mail = await Promise.race([smtp.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no email within 15 s:\n${second.output()}`)), 15_000))]);
    expect(mail.to).toEqual([org.operator.email]);
    expect((await parseMail(mail.raw)).subject).toBe('New lead: Crash course');
    // Marked sent: a few more polls (every second) send nothing again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(smtp.received.length).toBe(0);
    await second.stop();
  }, 120_000);
});
