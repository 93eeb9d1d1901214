import { type Delivery, isNotificationError, type Notification } from '@herald/notifications';
import { freePort } from '@herald/test-kit';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel, type EmailChannel } from '../src/index.js';
import { type SmtpSink, startSmtpSink } from './smtp-sink.js';

// A real SMTP server on loopback (the `smtp-server` package) receives what the channel sends through nodemailer.

function delivery(id: string, title: string, email: string | undefined, type = 'CommentReplied'): Delivery {
  const notification: Notification = {
    type,
    via: () => ['email'],
    toDatabase: () => ({ title, message: `About ${title}`, action_url: `https://app.example/${id}` }),
  };
  return {
    id,
    type,
    notification,
    notifiable: {
      type: 'User',
      id: '42',
      routeNotificationFor: (channel) => (channel === 'email' ? email : undefined),
    },
    createdAt: new Date(),
    anonymous: false,
  };
}

describe('the email channel over SMTP', () => {
  let sink: SmtpSink;
  let channel: EmailChannel;
  const last = () => sink.received.at(-1)?.mail as ParsedMail;

  beforeAll(async () => {
    sink = await startSmtpSink();
    channel = createEmailChannel({
      smtpUrl: `smtp://127.0.0.1:${sink.port}`,
      from: 'Herald <notify@example.test>',
      templates: {
        InvoicePaid: (item) => ({
          subject: `Paid: ${item.title}`,
          html: `<b>${item.message}</b>`,
          text: item.message,
        }),
      },
      unsubscribeUrl: (owner, types) =>
        `https://notify.example/unsubscribe?u=${owner.id}&t=${types.join(',')}`,
    });
  });

  afterAll(async () => {
    await channel?.close();
    await sink?.stop();
  });

  it('sends one notification with an HTML and a plain-text part and one-click unsubscribe headers', async () => {
    await channel.send(delivery('a1', 'Ada replied', 'ada@example.test'));
    const mail = last();
    expect(mail.subject).toBe('Ada replied');
    expect(mail.text).toBe('Ada replied\nAbout Ada replied\nhttps://app.example/a1\n');
    expect(mail.html).toContain('<a href="https://app.example/a1">Ada replied</a>');
    const received = sink.received.at(-1);
    expect(received?.header('list-unsubscribe')).toBe(
      '<https://notify.example/unsubscribe?u=42&t=CommentReplied>',
    );
    expect(received?.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('uses the template of the notification type', async () => {
    await channel.send(delivery('b1', 'Invoice #12', 'ada@example.test', 'InvoicePaid'));
    const mail = last();
    expect(mail.subject).toBe('Paid: Invoice #12');
    expect(mail.html).toBe('<b>About Invoice #12</b>');
    expect(mail.text).toBe('About Invoice #12');
  });

  it('sends a digest as one email listing every item', async () => {
    const before = sink.received.length;
    await channel.sendDigest([
      delivery('c1', 'First', 'ada@example.test'),
      delivery('c2', 'Second', 'ada@example.test', 'InvoicePaid'),
      delivery('c3', 'Third <b>', 'ada@example.test'),
    ]);
    expect(sink.received.length).toBe(before + 1);
    expect(sink.to('ada@example.test').length).toBeGreaterThan(0);
    const mail = last();
    expect(mail.subject).toBe('3 new notifications');
    expect(mail.text).toContain('First\nAbout First');
    expect(mail.text).toContain('Third <b>\nAbout Third <b>');
    expect(mail.html).toContain('Third &lt;b&gt;');
    expect(sink.received.at(-1)?.header('list-unsubscribe')).toContain('t=CommentReplied,InvoicePaid');
  });

  it('fails a delivery without an address, naming the recipient', async () => {
    const error = await channel.send(delivery('d1', 'Nobody', undefined)).catch((caught: unknown) => caught);
    expect(isNotificationError(error) && error.code).toBe('send_failed');
    expect((error as Error).message).toContain('no email address for User 42');
  });

  it('fails with send_failed when the SMTP server cannot be reached', async () => {
    const closed = createEmailChannel({
      smtpUrl: `smtp://127.0.0.1:${await freePort()}`,
      from: 'x@example.test',
    });
    const error = await closed
      .send(delivery('e1', 'Lost', 'ada@example.test'))
      .catch((caught: unknown) => caught);
    await closed.close();
    expect(isNotificationError(error) && error.code).toBe('send_failed');
  });

  it('refuses an SMTP URL of another scheme, naming the option', () => {
    expect(() => createEmailChannel({ smtpUrl: 'http://mail.example', from: 'x@example.test' })).toThrow(
      /smtpUrl must start with smtp: or smtps:/,
    );
  });
});
