// Loaded on the control's clicks only (turn on, turn off, devices, remove), so it imports types alone: anything else
// would be shared with the first chunk and split out of it, one more request for every page.
// push-devices.ts is imported from here alone, so it stays in this chunk.
import { type BellPushDevice, pushDeviceName } from './push-devices.js';
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

/**
 * A JSON call to the push routes, signed as the bell's other requests; answers `data`. A `DELETE` answered 404
 * succeeds: the subscription is gone already (removed from another device, or by the push service).
 */
async function call(
  context: PushSubscribeContext,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<unknown> {
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
  if (method === 'DELETE' && response.status === 404) return undefined;
  if (!response.ok) throw new Error(json.error?.message ?? `HTTP ${response.status}`);
  return json.data;
}

/** This browser's subscription through the bell's service worker, if it has one. */
async function currentSubscription(context: PushSubscribeContext): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration(
    new URL(context.routes.serviceWorker, location.href).href,
  );
  return (await registration?.pushManager.getSubscription()) ?? null;
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
  const { public_key: publicKey } = (await call(context, 'GET', routes.key)) as { public_key?: unknown };
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(String(publicKey)),
    }));
  await call(context, 'POST', routes.subscriptions, subscription.toJSON());
}

/**
 * Turns browser notifications off here: the server forgets this browser's subscription first (so no push is
 * sent to it), then the browser drops it. Nothing to do when it has none.
 */
export async function unsubscribeThisBrowser(context: PushSubscribeContext): Promise<void> {
  const subscription = await currentSubscription(context);
  if (!subscription) return;
  await call(context, 'DELETE', context.routes.subscriptions, { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

/** A saved subscription as the push routes list it. */
interface SavedPushDevice {
  readonly endpoint: string;
  readonly label: string | null;
  readonly user_agent: string | null;
}

/**
 * The signed-in user's devices with browser notifications on, oldest first, each named (`unknown` for a browser
 * not recognised), this browser's marked.
 */
export async function listPushDevices(
  context: PushSubscribeContext,
  unknown: string,
): Promise<BellPushDevice[]> {
  const [saved, own] = await Promise.all([
    call(context, 'GET', context.routes.subscriptions),
    // A browser whose worker cannot be asked still lists the devices; none of them is marked as this one.
    currentSubscription(context).catch(() => null),
  ]);
  return (saved as SavedPushDevice[]).map((device) => ({
    endpoint: device.endpoint,
    name: pushDeviceName(device, unknown),
    current: device.endpoint === own?.endpoint,
  }));
}

/** Removes one of the user's devices; when it is this browser, the browser drops its subscription too. */
export async function removePushDevice(context: PushSubscribeContext, endpoint: string): Promise<void> {
  await call(context, 'DELETE', context.routes.subscriptions, { endpoint });
  // The server no longer pushes to it either way; a worker that cannot be asked keeps a subscription nobody uses.
  const own = await currentSubscription(context).catch(() => null);
  if (own?.endpoint === endpoint) await own.unsubscribe();
}
