import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One email the sink received: who it was for, and the message as mailparser reads it. */
export interface ReceivedMail {
  readonly to: readonly string[];
  readonly mail: ParsedMail;
  /** A raw header's value by lower-case name (`list-unsubscribe`), as the sender wrote it. */
  header(name: string): string | undefined;
}

/** A real SMTP server (the `smtp-server` package) on a loopback port that keeps every message it accepts. */
export interface SmtpSink {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** The mails addressed to one recipient, in arrival order. */
  to(address: string): ReceivedMail[];
  stop(): Promise<void>;
}

/** Starts the sink on a random loopback port: no TLS and no login, as a local relay would take mail. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            mail,
            header: (name) =>
              mail.headerLines
                .find((line) => line.key === name)
                ?.line.replace(/^[^:]+:\s*/, '')
                .replace(/\r?\n\s+/g, ' '),
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    to: (address) => received.filter((item) => item.to.includes(address)),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
