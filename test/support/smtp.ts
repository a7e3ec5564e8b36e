import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { Mailer } from '../../src/lib/mailer.js';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Emails received and not yet taken by next(). */
  received: readonly ReceivedMail[];
  /** The next email received (or the first one kept), waiting for it if need be. */
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives; on `port` to start one again where one was. */
export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
        const waiter = waiting.shift();
        if (waiter) waiter(mail);
        else received.push(mail);
        callback();
      });
    },
  });
  server.listen(port, '127.0.0.1');
  await once(server.server, 'listening');
  const address = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    next: () => {
      const mail = received.shift();
      return mail ? Promise.resolve(mail) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The body of a plain-text email, quoted-printable decoded. */
export function mailBody(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** An email as a reader sees it: its headers decoded, the plain-text and HTML parts decoded. */
export interface ParsedMail {
  subject: string;
  messageId: string;
  text: string;
  html: string | undefined;
}

/** Reads an email as a mail client would (mailparser, from the nodemailer authors). */
export async function parseMail(raw: string): Promise<ParsedMail> {
  const mail = await simpleParser(raw);
  return { subject: mail.subject ?? '', messageId: mail.messageId ?? '', text: (mail.text ?? '').replace(/\n$/, ''), html: mail.html === false ? undefined : mail.html };
}

export interface RecordingMailer extends Mailer {
  /** Every email sent, in order, as composed. */
  sent: ReceivedMail[];
}

/**
 * A mailer that composes each email with nodemailer, as the SMTP mailer does, and keeps it instead of
 * sending it: the same work up to the socket, without the network (or the SMTP server's 100 ms greeting delay).
 */
export function createRecordingMailer(from = 'Switchboard <hello@example.com>'): RecordingMailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const sent: ReceivedMail[] = [];
  return {
    sent,
    async send(message) {
      const info = await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, ...(message.html !== undefined ? { html: message.html } : {}) });
      sent.push({ to: [message.to], raw: String(info.message) });
    },
    close: () => transport.close(),
  };
}
