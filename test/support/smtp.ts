import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
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

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, encoding: string, data: string) =>
    encoding.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
}

function headersOf(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    return Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return body;
}

/** Reads the emails nodemailer writes (one part, or multipart/alternative of text and HTML): enough for tests. */
export function parseMail(raw: string): ParsedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const type = headers.get('content-type') ?? 'text/plain';
  const parts: { type: string; text: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const at = chunk.indexOf('\r\n\r\n');
      const partHeaders = headersOf(chunk.slice(0, at).replace(/^\r\n/, ''));
      parts.push({ type: partHeaders.get('content-type') ?? 'text/plain', text: decodeBody(chunk.slice(at + 4).replace(/\r\n$/, ''), partHeaders.get('content-transfer-encoding')) });
    }
  } else parts.push({ type, text: decodeBody(body, headers.get('content-transfer-encoding')) });
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text: parts.find((part) => part.type.startsWith('text/plain'))?.text.replace(/\r\n/g, '\n') ?? '',
    html: parts.find((part) => part.type.startsWith('text/html'))?.text,
  };
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
