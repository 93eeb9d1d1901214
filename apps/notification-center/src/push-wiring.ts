import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import {
  createPushSubscriptions,
  isNotificationError,
  type NotificationLogger,
  type NotificationStore,
  type PushSubscriptions,
  pushEndpointsAllowed,
  type VapidKeys,
} from '@herald/notifications';
import { createSecretCipher } from '@herald/protocol-core';
import { createWebPushChannel, generateVapidKeys, type WebPushChannel } from '@herald/web-push-channel';
import type { Hono } from 'hono';
import type { CenterConfig, PushConfig } from './config.js';

/** Where the service worker is served; its scope is `/notification/` unless a page asks for more. */
export const SERVICE_WORKER_ROUTE = '/notification/sw.js';

/** The `push` away channel, the subscriptions it reads, and the VAPID public key browsers subscribe with. */
export interface CenterPush {
  readonly channel: WebPushChannel;
  readonly subscriptions: PushSubscriptions;
  readonly publicKey: string;
  /** Which push endpoints are saved and pushed to (NOTIFICATION_PUSH_ENDPOINTS). */
  readonly endpointAllowed: (endpoint: URL) => boolean;
  close(): void;
}

/** The store's VAPID keys; a sealed private key that cannot be opened stops the start, naming the setting. */
async function storeVapidKeys(subscriptions: PushSubscriptions, sealing: boolean): Promise<VapidKeys> {
  try {
    return await subscriptions.vapidKeys(generateVapidKeys);
  } catch (error) {
    if (!isNotificationError(error) || (error.code !== 'key_required' && error.code !== 'wrong_key'))
      throw error;
    const hint = sealing
      ? 'NOTIFICATION_STORE_KEY is not the key it was sealed with: set that key again'
      : 'set NOTIFICATION_STORE_KEY to the key it was sealed with';
    throw new Error(`${error.message}. ${hint}`, { cause: error });
  }
}

/**
 * Sets up Web Push: the configured VAPID keys, else the store's (generated on the first start and kept, so a
 * restart keeps every browser's subscription valid; its private key sealed when NOTIFICATION_STORE_KEY is set).
 */
export async function createCenterPush(
  config: Pick<CenterConfig, 'push' | 'storeKey'>,
  store: NotificationStore,
  logger: NotificationLogger,
): Promise<CenterPush> {
  const cipher = config.storeKey ? createSecretCipher(config.storeKey) : undefined;
  const subscriptions = createPushSubscriptions(store, { cipher });
  const push: PushConfig = config.push;
  const keys = push.vapidKeys ?? (await storeVapidKeys(subscriptions, cipher !== undefined));
  // A CA given here is trusted besides Node's own roots, not instead of them.
  const agent = push.caFile
    ? new Agent({ keepAlive: true, ca: [...rootCertificates, await readFile(push.caFile, 'utf8')] })
    : undefined;
  const endpointAllowed = pushEndpointsAllowed(push.endpoints);
  const channel = createWebPushChannel({
    vapid: { ...keys, subject: push.subject },
    subscriptions,
    ttlSeconds: push.ttlSeconds,
    agent,
    // Subscriptions saved before NOTIFICATION_PUSH_ENDPOINTS narrowed the hosts get no push either.
    endpointAllowed,
    logger,
  });
  return {
    channel,
    subscriptions,
    publicKey: keys.publicKey,
    endpointAllowed,
    close: () => agent?.destroy(),
  };
}

const workerSource = readFile(new URL('../static/notification-sw.js', import.meta.url), 'utf8');

/** Serves the service worker that shows pushes and opens their link on click. */
export function serveServiceWorker(app: Hono): void {
  app.get(SERVICE_WORKER_ROUTE, async (c) =>
    c.body(await workerSource, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      // A page may register it for its whole origin (scope `/`), not only for `/notification/`.
      'service-worker-allowed': '/',
      // Browsers check for a new worker at most daily anyway; never let a proxy keep an old one longer.
      'cache-control': 'no-cache',
    }),
  );
}
