import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createRecordingMailer, mailBody, startSmtp, type TestSmtp } from '../../test/support/smtp.js';
import { createBackgroundQueue } from '../lib/background-queue.js';
import type { MailMessage } from '../lib/mailer.js';

describe.each(testDialects())('emails through SMTP_URL on %s', (dialect) => {
  let t: TestContext;
  let smtp: TestSmtp;
  const lines: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtp();
    const logStream = new Writable({ write: (chunk, _encoding, done) => { lines.push(String(chunk)); done(); } });
    t = await createTestContext(dialect, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchboard <hello@example.com>', LOG_LEVEL: 'info' }, deps: { logStream } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('emails the invitation link (not in the answer, not in the logs), and the link works', async () => {
    const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'olive@example.com', password: 'violet kettle marathon', name: 'Olive', organizationName: 'Olive Plumbing' } });
    expect(signup.statusCode).toBe(201);
    const cookie = String(signup.headers['set-cookie']).split(';')[0]!;
    const csrf = signup.json().data.csrfToken as string;
    const res = await t.app.inject({ method: 'POST', url: '/api/org/invitations', headers: { cookie, 'x-csrf-token': csrf }, payload: { email: 'mia@example.com' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).not.toHaveProperty('url');
    const mail = await smtp.next();
    expect(mail.to).toEqual(['mia@example.com']);
    expect(mail.raw).toMatch(/^From: Switchboard <hello@example\.com>/m);
    expect(mail.raw).toMatch(/^Subject: Join Olive Plumbing on Switchboard/m);
    const text = mailBody(mail.raw);
    expect(text).toContain('Olive invites you to join Olive Plumbing');
    const link = /http:\/\/localhost:3000\/app\/invitations\/(svc_inv_\w+)/.exec(text);
    expect(link).not.toBeNull();
    const token = link![1]!;
    expect(lines.join('')).not.toContain(token);
    const accepted = await t.app.inject({ method: 'POST', url: `/api/auth/invitations/${token}/accept`, payload: { name: 'Mia', password: 'amber lantern harbour' } });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json().data.user.role).toBe('member');
  });

  it('emails a password-reset link to a known address only', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email: 'nobody@example.com' } })).statusCode).toBe(202);
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email: 'Olive@Example.com' } })).statusCode).toBe(202);
    const mail = await smtp.next();
    expect(mail.to).toEqual(['olive@example.com']);
    const token = /\/app\/reset-password\/(svc_rst_\w+)/.exec(mailBody(mail.raw))![1]!;
    expect(lines.join('')).not.toContain(token);
    const done = await t.app.inject({ method: 'POST', url: '/api/auth/password-reset/confirm', payload: { token, password: 'a fresh start today' } });
    expect(done.statusCode).toBe(200);
    expect(smtp.received).toEqual([]);
  });
});

describe('password-reset emails after the answer', () => {
  it('are sent before the app closes, even when it closes right after answering', async () => {
    const recording = createRecordingMailer();
    // A slow SMTP server: the email is still being sent when the close begins.
    const mailer = { ...recording, send: async (message: MailMessage) => { await new Promise((resolve) => setTimeout(resolve, 200)); await recording.send(message); } };
    const t = await createTestContext('sqlite', { deps: { mailer, background: createBackgroundQueue({ log: { error: () => undefined } }) } });
    let closed = false;
    try {
      const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'olive@example.com', password: 'violet kettle marathon', name: 'Olive', organizationName: 'Olive Plumbing' } });
      expect(signup.statusCode).toBe(201);
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email: 'olive@example.com' } });
      expect(res.statusCode).toBe(202);
      // Nothing is done yet when the answer comes: the lookup, the row and the email run after it.
      expect(recording.sent).toEqual([]);
      await t.close();
      closed = true;
      expect(recording.sent.map((mail) => mail.to)).toEqual([['olive@example.com']]);
      expect(mailBody(recording.sent[0]!.raw)).toMatch(/\/app\/reset-password\/svc_rst_\w{40}/);
    } finally {
      if (!closed) await t.close();
    }
  });
});

describe('links without SMTP_URL', () => {
  it('logs the link at info level in development, and never in production', async () => {
    for (const env of ['development', 'production'] as const) {
      const lines: string[] = [];
      const logStream = new Writable({ write: (chunk, _encoding, done) => { lines.push(String(chunk)); done(); } });
      const t = await createTestContext('sqlite', { env: { NODE_ENV: env, LOG_LEVEL: 'info', ...(env === 'production' ? { PUBLIC_URL: 'https://switchboard.example.com' } : {}) }, deps: { logStream } });
      try {
        const signup = await t.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: `dev-${env}@example.com`, password: 'violet kettle marathon', name: 'Dev', organizationName: 'Dev Co' } });
        expect(signup.statusCode).toBe(201);
        // Secure in production only: development runs on plain http://localhost.
        expect(String(signup.headers['set-cookie']).split('; ').includes('Secure')).toBe(env === 'production');
        const invite = await t.app.inject({ method: 'POST', url: '/api/org/invitations', headers: { cookie: String(signup.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': signup.json().data.csrfToken }, payload: { email: 'x@example.com' } });
        const url = invite.json().data.url as string;
        expect(url).toContain('/app/invitations/svc_inv_');
        await t.app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email: `dev-${env}@example.com` } });
        await t.background.idle();
        const logged = lines.join('');
        if (env === 'development') {
          expect(logged).toContain(url);
          expect(logged).toMatch(/"level":30[^\n]*\/app\/reset-password\/svc_rst_/);
        } else {
          expect(logged).not.toContain('svc_inv_');
          expect(logged).not.toContain('svc_rst_');
        }
        // Session tokens never reach the logs, whatever the level.
        expect(logged).not.toMatch(/svc_ses_/);
      } finally {
        await t.close();
      }
    }
  });
});
