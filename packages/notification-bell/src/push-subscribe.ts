// Loaded on the control's click only, so it imports types alone: anything else would be shared with the first
// chunk and split out of it, one more request for every page.
import type { BellPushRoutes } from './push-routes.js';

/** What subscribing needs from the bell: where, how requests are signed, and with which cookies. */
export interface PushSubscribeContext {
  readonly routes: BellPushRoutes;
  readonly scope: string | undefined;
  readonly credentials: RequestCredentials;
  /** The headers that sign a request (a write carries the CSRF token when there is no user token). */
  headers(write: boolean): Promise<Record<string, string>>;
}

/** Waits until a registration has an active worker (the page may be outside its scope, so `ready` never comes). */
function activated(registration: ServiceWorkerRegistration): Promise<ServiceWorkerRegistration> {
  return new Promise((resolve, reject) => {
    const worker = registration.active ?? registration.waiting ?? registration.installing;
    if (!worker) return reject(new Error('the service worker did not install'));
    if (worker.state === 'activated') return resolve(registration);
    worker.addEventListener('statechange', () => {
      if (worker.state === 'activated') resolve(registration);
      if (worker.state === 'redundant') reject(new Error('the service worker failed to install'));
    });
  });
}

/** The key as the bytes `applicationServerKey` takes (it is base64url text on the wire). */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const text = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/** A JSON call to the push routes, signed as the bell's other requests; answers `data`. */
async function call(context: PushSubscribeContext, method: 'GET' | 'POST', url: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    credentials: context.credentials,
    headers: {
      accept: 'application/json',
      'x-requested-with': 'XMLHttpRequest',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(await context.headers(method !== 'GET')),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json().catch(() => ({}))) as { data?: unknown; error?: { message?: string } };
  if (!response.ok) throw new Error(json.error?.message ?? `HTTP ${response.status}`);
  return json.data as Record<string, unknown>;
}

/**
 * Registers the service worker, subscribes this browser with the service's VAPID key (or takes its
 * subscription if it has one) and saves it through the push routes. Permission must be granted already.
 */
export async function subscribeThisBrowser(context: PushSubscribeContext): Promise<void> {
  const { routes, scope } = context;
  const registration = await activated(
    await navigator.serviceWorker.register(routes.serviceWorker, scope ? { scope } : undefined),
  );
  const { public_key: publicKey } = await call(context, 'GET', routes.key);
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(String(publicKey)),
    }));
  await call(context, 'POST', routes.subscriptions, subscription.toJSON());
}
