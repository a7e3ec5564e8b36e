import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text: short, with the link on a line of its own. */
  text: string;
}

/** Sends the console's emails (invitations, password resets). The app makes one from SMTP_URL; tests pass their own. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Through the SMTP server of SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`), with nodemailer. */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(options.url);
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}
