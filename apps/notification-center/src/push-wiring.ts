import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import {
  createPushSubscriptions,
  type NotificationLogger,
  type NotificationStore,
  type PushSubscriptions,
} from '@herald/notifications';
import { createWebPushChannel, generateVapidKeys, type WebPushChannel } from '@herald/web-push-channel';
import type { Hono } from 'hono';
import type { PushConfig } from './config.js';

/** Where the service worker is served; its scope is `/notification/` unless a page asks for more. */
export const SERVICE_WORKER_ROUTE = '/notification/sw.js';

/** The `push` away channel, the subscriptions it reads, and the VAPID public key browsers subscribe with. */
export interface CenterPush {
  readonly channel: WebPushChannel;
  readonly subscriptions: PushSubscriptions;
  readonly publicKey: string;
  close(): void;
}

/**
 * Sets up Web Push: the configured VAPID keys, else the store's (generated on the first start and kept, so a
 * restart keeps every browser's subscription valid).
 */
export async function createCenterPush(
  config: PushConfig,
  store: NotificationStore,
  logger: NotificationLogger,
): Promise<CenterPush> {
  const subscriptions = createPushSubscriptions(store);
  const keys = config.vapidKeys ?? (await subscriptions.vapidKeys(generateVapidKeys));
  // A CA given here is trusted besides Node's own roots, not instead of them.
  const agent = config.caFile
    ? new Agent({ keepAlive: true, ca: [...rootCertificates, await readFile(config.caFile, 'utf8')] })
    : undefined;
  const channel = createWebPushChannel({
    vapid: { ...keys, subject: config.subject },
    subscriptions,
    ttlSeconds: config.ttlSeconds,
    agent,
    logger,
  });
  return { channel, subscriptions, publicKey: keys.publicKey, close: () => agent?.destroy() };
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
