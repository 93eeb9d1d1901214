import { authHeaders } from './auth.js';
import { apiBase, readCsrfToken } from './client.js';
import { currentBellOptions } from './components.js';
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

/** What the control shows: nothing to do, a request running, on, or why turning it on failed. */
export type BellPushState = 'off' | 'working' | 'on' | 'failed';

/** The "Turn on browser notifications" control in the bell's panel. */
export interface NotificationPushComponent {
  state: BellPushState;
  /** False where the browser has no Push API, where permission was denied, or with `push: false`. */
  visible: boolean;
  /** Why the last attempt failed, in the page's language. */
  error: string;
  init(): Promise<void>;
  /** Asks for permission (only here, on the user's click), registers the worker, subscribes, saves. */
  enable(): Promise<void>;
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

function pushSupported(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof window !== 'undefined' &&
    'PushManager' in window &&
    'Notification' in window
  );
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

/** The "Turn on browser notifications" component (`x-data="notificationPush"`), inside the bell's panel. */
export function notificationPush(): NotificationPushComponent {
  const options = () => currentBellOptions();
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const auth = { authToken: options().authToken, csrfToken: readCsrfToken };
    const response = await fetch(url, {
      method,
      credentials: options().credentials,
      headers: {
        accept: 'application/json',
        'x-requested-with': 'XMLHttpRequest',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(await authHeaders(auth, method !== 'GET')),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json().catch(() => ({}))) as { data?: unknown; error?: { message?: string } };
    if (!response.ok) throw new Error(json.error?.message ?? `HTTP ${response.status}`);
    return json.data as Record<string, unknown>;
  };

  return {
    state: 'off',
    visible: false,
    error: '',

    async init() {
      this.visible =
        options().push !== false && pushSupported() && Notification.permission !== 'denied';
      if (!this.visible || Notification.permission !== 'granted') return;
      // Permission was given before: show "on" when this browser's subscription is already there.
      const routes = pushRoutes(options());
      const registration = await navigator.serviceWorker
        .getRegistration(new URL(routes.serviceWorker, location.href).href)
        .catch(() => undefined);
      if (await registration?.pushManager.getSubscription().catch(() => null)) this.state = 'on';
    },

    async enable() {
      if (this.state === 'working') return;
      this.state = 'working';
      this.error = '';
      try {
        const permission = await Notification.requestPermission();
        if (permission !== 'granted') {
          this.state = 'off';
          // Denied: the browser will not ask again, so the control goes away.
          this.visible = permission !== 'denied';
          return;
        }
        const routes = pushRoutes(options());
        const push = options().push;
        const registration = await activated(
          await navigator.serviceWorker.register(
            routes.serviceWorker,
            push !== false && push.scope ? { scope: push.scope } : undefined,
          ),
        );
        const { public_key: publicKey } = await call('GET', routes.key);
        const subscription =
          (await registration.pushManager.getSubscription()) ??
          (await registration.pushManager.subscribe({
            userVisibleOnly: true,
            applicationServerKey: keyBytes(String(publicKey)),
          }));
        await call('POST', routes.subscriptions, subscription.toJSON());
        this.state = 'on';
      } catch (error) {
        this.state = 'failed';
        const detail = error instanceof Error ? error.message : String(error);
        this.error = options().labels.pushFailed.replace('{detail}', detail);
      }
    },
  };
}
