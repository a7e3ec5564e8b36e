import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text: short, with the link on a line of its own. */
  text: string;
  /** A minimal HTML part saying the same as `text` (every value in it escaped by the caller). */
  html?: string;
  /**
   * The Message-ID, without angle brackets (`id@host`): the same for every attempt of one message, so a copy
   * sent again after a crash is recognisable as the same email. Default: nodemailer makes one.
   */
  messageId?: string;
}

/** Sends the service's emails (invitations, password resets, notifications). The app makes one from SMTP_URL; tests pass their own. */
export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with nodemailer's error (`responseCode` when the server answered). */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Bounded waits: a server that does not answer fails the send within about a minute instead of nodemailer's
 * defaults (2 minutes to connect, 10 minutes of socket silence), so a notification's lease outlives its attempt.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** Through the SMTP server of SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`), with nodemailer. */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  // The URL's settings, with the waits above where it sets none.
  const transport = nodemailer.createTransport({ url: options.url, ...SMTP_TIMEOUTS });
  return {
    async send(message) {
      await transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined ? { html: message.html } : {}),
        ...(message.messageId !== undefined ? { messageId: `<${message.messageId}>` } : {}),
      });
    },
    close: () => transport.close(),
  };
}
