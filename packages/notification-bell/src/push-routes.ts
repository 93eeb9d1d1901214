import { apiBase } from './client.js';
import type { BellOptions } from './options.js';

/** Where push lives, as `push` gives it or derived from the bell's `apiUrl`. */
export interface BellPushRoutes {
  /** `GET`: the VAPID public key. */
  readonly key: string;
  /** `POST`: save this browser's subscription. */
  readonly subscriptions: string;
  /** The service worker script (must be on the page's own origin, as browsers require). */
  readonly serviceWorker: string;
}

/**
 * The push routes beside the JSON API: `…/notification/notifications/unread.json` → `…/notification/push/…`,
 * and the service worker at `…/notification/sw.js` unless `push.serviceWorkerUrl` names one.
 */
export function pushRoutes(options: Pick<BellOptions, 'apiUrl' | 'push'>): BellPushRoutes {
  const root = apiBase(options.apiUrl).replace(/\/notifications$/, '');
  const given = options.push === false ? undefined : options.push.serviceWorkerUrl;
  return {
    key: `${root}/push/key.json`,
    subscriptions: `${root}/push/subscriptions.json`,
    serviceWorker: given ?? `${root}/sw.js`,
  };
}
