import { authHeaders } from './auth.js';
import { readCsrfToken } from './client.js';
import { currentBellOptions } from './components.js';
import { pushRoutes } from './push-routes.js';

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

function pushSupported(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof window !== 'undefined' &&
    'PushManager' in window &&
    'Notification' in window
  );
}

/** The "Turn on browser notifications" component (`x-data="notificationPush"`), inside the bell's panel. */
export function notificationPush(): NotificationPushComponent {
  const options = () => currentBellOptions();
  return {
    state: 'off',
    visible: false,
    error: '',

    async init() {
      this.visible = options().push !== false && pushSupported() && Notification.permission !== 'denied';
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
        // Loaded on this click only: most pages never need it.
        const { subscribeThisBrowser } = await import('./push-subscribe.js');
        const { push, authToken, credentials } = options();
        await subscribeThisBrowser({
          routes: pushRoutes(options()),
          scope: push === false ? undefined : push.scope,
          credentials,
          headers: (write) => authHeaders({ authToken, csrfToken: readCsrfToken }, write),
        });
        this.state = 'on';
      } catch (error) {
        this.state = 'failed';
        const detail = error instanceof Error ? error.message : String(error);
        this.error = options().labels.pushFailed.replace('{detail}', detail);
      }
    },
  };
}
