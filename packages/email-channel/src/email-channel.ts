import {
  type Delivery,
  deliveryItemOf,
  type NotifiableKey,
  type NotificationChannel,
  NotificationError,
  type NotificationLogger,
  silentNotificationLogger,
} from '@herald/notifications';
import nodemailer from 'nodemailer';
import {
  type DigestTemplate,
  defaultDigestTemplate,
  defaultEmailTemplate,
  type EmailItem,
  type EmailTemplate,
  type RenderedEmail,
} from './email-template.js';

/** Options of {@link createEmailChannel}. */
export interface EmailChannelOptions {
  /** The SMTP server: `smtp://user:pass@mail.example:587` (STARTTLS when offered) or `smtps://…:465`. */
  readonly smtpUrl: string;
  /** The sender: `Herald <notifications@example.com>`. */
  readonly from: string;
  /** Templates per notification type; other types get {@link defaultEmailTemplate}. */
  readonly templates?: Readonly<Record<string, EmailTemplate>> | undefined;
  /** The digest's template ({@link defaultDigestTemplate} when not given). */
  readonly digestTemplate?: DigestTemplate | undefined;
  /**
   * The signed link that turns email off for these types for this recipient; sent as `List-Unsubscribe` with
   * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058). No header without it.
   */
  readonly unsubscribeUrl?:
    | ((owner: NotifiableKey, types: readonly string[]) => string | undefined)
    | undefined;
  /** Give up on the SMTP connection after this long (default 10,000 ms). */
  readonly timeoutMs?: number | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** The email channel: a notification channel with digests, and a way to close its SMTP connections. */
export interface EmailChannel extends NotificationChannel {
  sendDigest(deliveries: readonly Delivery[]): Promise<void>;
  /** Closes the SMTP connections. */
  close(): Promise<void>;
}

/** A notification may build its own mail data with `toMail()`; else the database data is used. */
function itemOf(delivery: Delivery): EmailItem {
  return deliveryItemOf(delivery, { channel: 'email', builder: 'toMail' });
}

function addressOf(delivery: Delivery): string {
  const address = delivery.notifiable.routeNotificationFor?.('email', delivery.notification);
  if (typeof address !== 'string' || address === '') {
    throw new NotificationError(
      'send_failed',
      `no email address for ${delivery.notifiable.type} ${delivery.notifiable.id} (routeNotificationFor('email'))`,
      { channel: 'email' },
    );
  }
  return address;
}

/**
 * Creates the email channel: each notification (or a digest of several) as one email with an HTML and a
 * plain-text part, sent over SMTP with nodemailer to the address `routeNotificationFor('email')` gives.
 *
 * @throws {NotificationError} `invalid_options` when `smtpUrl` is not an smtp: or smtps: URL.
 * @example
 * const email = createEmailChannel({ smtpUrl: 'smtp://127.0.0.1:2525', from: 'Herald <notify@example.com>' });
 * createNotifier({ channels: { database, email } });
 */
export function createEmailChannel(options: EmailChannelOptions): EmailChannel {
  let url: URL;
  try {
    url = new URL(options.smtpUrl);
  } catch (cause) {
    throw new NotificationError('invalid_options', 'smtpUrl must be a URL such as smtp://host:587', {
      cause,
    });
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new NotificationError(
      'invalid_options',
      `smtpUrl must start with smtp: or smtps:, got "${url.protocol}"`,
    );
  }
  const timeout = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  const logger = options.logger ?? silentNotificationLogger;

  const mail = async (delivery: Delivery, types: readonly string[], rendered: RenderedEmail) => {
    const to = addressOf(delivery);
    const owner = { type: delivery.notifiable.type, id: String(delivery.notifiable.id) };
    const unsubscribe = options.unsubscribeUrl?.(owner, types);
    const headers: Record<string, string> = unsubscribe
      ? { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
      : {};
    try {
      await transport.sendMail({
        from: options.from,
        to,
        subject: rendered.subject,
        html: rendered.html,
        text: rendered.text,
        headers,
      });
    } catch (cause) {
      throw new NotificationError(
        'send_failed',
        `the SMTP server refused or could not be reached: ${(cause as Error).message}`,
        {
          cause,
          channel: 'email',
        },
      );
    }
    logger.debug('email sent', { to, types });
  };

  return {
    async send(delivery) {
      const item = itemOf(delivery);
      const template = options.templates?.[delivery.type] ?? defaultEmailTemplate;
      await mail(delivery, [delivery.type], template(item));
    },
    async sendDigest(deliveries) {
      const first = deliveries[0];
      if (!first) return;
      const items = deliveries.map(itemOf).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      if (items.length === 1) {
        await this.send(first);
        return;
      }
      const types = [...new Set(items.map((item) => item.type))];
      await mail(first, types, (options.digestTemplate ?? defaultDigestTemplate)(items));
    },
    async close() {
      transport.close();
    },
  };
}
