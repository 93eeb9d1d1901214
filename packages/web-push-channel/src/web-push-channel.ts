import type { Agent } from 'node:https';
import {
  type Delivery,
  type NotificationChannel,
  NotificationError,
  type NotificationLogger,
  type PushSubscriptionRecord,
  type PushSubscriptions,
  silentNotificationLogger,
  type VapidKeys,
} from '@herald/notifications';
import webPush from 'web-push';
import {
  defaultPushDigestTemplate,
  defaultPushTemplate,
  type PushDigestTemplate,
  type PushMessage,
  type PushTemplate,
  payloadOf,
  pushItemOf,
} from './push-message.js';

/** Options of {@link createWebPushChannel}. */
export interface WebPushChannelOptions {
  /**
   * The VAPID identity (RFC 8292): the key pair browsers subscribed with and a contact, `mailto:` or `https:`,
   * the push services may use to reach the sender.
   */
  readonly vapid: VapidKeys & { readonly subject: string };
  /** Where each recipient's browsers are found and dead ones are removed (`createPushSubscriptions(store)`). */
  readonly subscriptions: Pick<PushSubscriptions, 'listFor' | 'removeEndpoint'>;
  /** How long a push service keeps a message for a browser that is offline (`TTL`, default 86,400 s). */
  readonly ttlSeconds?: number | undefined;
  /** The `Urgency` header (RFC 8030 §5.3); default `normal`. */
  readonly urgency?: 'very-low' | 'low' | 'normal' | 'high' | undefined;
  /** Templates per notification type; other types get {@link defaultPushTemplate}. */
  readonly templates?: Readonly<Record<string, PushTemplate>> | undefined;
  /** The digest's template ({@link defaultPushDigestTemplate} when not given). */
  readonly digestTemplate?: PushDigestTemplate | undefined;
  /** Give up on a push service after this long without an answer (default 10,000 ms). */
  readonly timeoutMs?: number | undefined;
  /** The HTTPS agent pushes go through (to trust a private CA, say). */
  readonly agent?: Agent | undefined;
  /**
   * Which endpoints it posts to (default: every saved one). Give the check the subscription routes use
   * (`pushEndpointsAllowed(...)`), so a subscription saved before the list was narrowed gets no push either; it is
   * skipped (and logged), not removed.
   */
  readonly endpointAllowed?: ((endpoint: URL) => boolean) | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** The Web Push channel: a notification channel with digests. */
export interface WebPushChannel extends NotificationChannel {
  sendDigest(deliveries: readonly Delivery[]): Promise<void>;
}

/** Push service answers that mean the subscription is gone for good (RFC 8030 §7.3, RFC 8292 §4). */
const GONE = new Set([404, 410]);

/**
 * A fresh VAPID key pair (P-256), base64url, for services that keep their own.
 *
 * @example
 * const keys = await createPushSubscriptions(store).vapidKeys(generateVapidKeys);
 */
export function generateVapidKeys(): VapidKeys {
  return webPush.generateVAPIDKeys();
}

function checkVapid(vapid: WebPushChannelOptions['vapid']): void {
  try {
    // Validates the subject and both keys the way every later push would.
    webPush.getVapidHeaders(
      'https://push.example',
      vapid.subject,
      vapid.publicKey,
      vapid.privateKey,
      'aes128gcm',
    );
  } catch (cause) {
    throw new NotificationError('invalid_options', `vapid: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Creates the Web Push channel: each notification (or a digest of several) goes as one encrypted push
 * (RFC 8291, aes128gcm) signed with VAPID to every browser the recipient subscribed; a browser the push
 * service answers 404 or 410 for is removed.
 *
 * @throws {NotificationError} `invalid_options` when the VAPID subject or keys are unusable.
 * @example
 * const subscriptions = createPushSubscriptions(store);
 * const keys = await subscriptions.vapidKeys(generateVapidKeys);
 * const push = createWebPushChannel({ vapid: { ...keys, subject: 'mailto:ops@example.com' }, subscriptions });
 * createAwayDelivery({ store, channels: { push } });
 */
export function createWebPushChannel(options: WebPushChannelOptions): WebPushChannel {
  checkVapid(options.vapid);
  const logger = options.logger ?? silentNotificationLogger;
  const { subject, publicKey, privateKey } = options.vapid;
  const requestOptions: webPush.RequestOptions = {
    vapidDetails: { subject, publicKey, privateKey },
    TTL: options.ttlSeconds ?? 86_400,
    urgency: options.urgency ?? 'normal',
    contentEncoding: 'aes128gcm',
    timeout: options.timeoutMs ?? 10_000,
    ...(options.agent ? { agent: options.agent } : {}),
  };

  /** Pushes to one browser; answers the error to report, or undefined when sent or the browser is gone. */
  const pushTo = async (device: PushSubscriptionRecord, payload: string): Promise<Error | undefined> => {
    try {
      await webPush.sendNotification(
        { endpoint: device.endpoint, keys: { ...device.keys } },
        payload,
        requestOptions,
      );
      return undefined;
    } catch (error) {
      if (error instanceof webPush.WebPushError && GONE.has(error.statusCode)) {
        await options.subscriptions.removeEndpoint(device.endpoint);
        logger.info('push subscription gone; removed', {
          owner: device.owner.id,
          status: error.statusCode,
        });
        return undefined;
      }
      return error instanceof Error ? error : new Error(String(error));
    }
  };

  const push = async (delivery: Delivery, message: PushMessage): Promise<void> => {
    const owner = { type: delivery.notifiable.type, id: String(delivery.notifiable.id) };
    const devices = (await options.subscriptions.listFor(owner)).filter((device) => {
      if (!options.endpointAllowed || options.endpointAllowed(new URL(device.endpoint))) return true;
      logger.warn('push endpoint not on an accepted push service; skipped', {
        owner: owner.id,
        host: new URL(device.endpoint).host,
      });
      return false;
    });
    if (devices.length === 0) {
      logger.debug('no push subscription', { owner: owner.id });
      return;
    }
    const payload = payloadOf(message);
    const failures = (await Promise.all(devices.map((device) => pushTo(device, payload)))).filter(
      (failure): failure is Error => failure !== undefined,
    );
    const first = failures[0];
    if (first) {
      const status = first instanceof webPush.WebPushError ? ` (${first.statusCode} ${first.body})` : '';
      throw new NotificationError(
        'send_failed',
        `the push service refused or could not be reached for ${failures.length} of ${devices.length} devices: ${first.message}${status}`,
        { cause: first, channel: 'push' },
      );
    }
    logger.debug('push sent', { owner: owner.id, devices: devices.length, ids: message.ids });
  };

  return {
    async send(delivery) {
      const template = options.templates?.[delivery.type] ?? defaultPushTemplate;
      await push(delivery, template(pushItemOf(delivery)));
    },
    async sendDigest(deliveries) {
      const first = deliveries[0];
      if (!first) return;
      if (deliveries.length === 1) {
        await this.send(first);
        return;
      }
      const items = deliveries.map(pushItemOf).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      await push(first, (options.digestTemplate ?? defaultPushDigestTemplate)(items));
    },
  };
}
