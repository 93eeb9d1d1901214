import { authHeaders } from './auth.js';
import { readCsrfToken } from './client.js';
import { currentBellOptions } from './components.js';
import type { BellPushDevice } from './push-devices.js';
import { pushRoutes } from './push-routes.js';
import type { PushSubscribeContext } from './push-subscribe.js';

/** What the control shows: nothing to do, a request running, on, or why turning it on failed. */
export type BellPushState = 'off' | 'working' | 'on' | 'failed';

/** The browser notifications control in the bell's panel: turn on, turn off, and the user's devices. */
export interface NotificationPushComponent {
  state: BellPushState;
  /** False where the browser has no Push API, where permission was denied, or with `push: false`. */
  visible: boolean;
  /** Why the last attempt failed, in the page's language; empty when it did not. */
  error: string;
  /** The user's devices with browser notifications on, once the list was opened. */
  devices: BellPushDevice[];
  /** Whether the device list is shown. */
  devicesOpen: boolean;
  init(): Promise<void>;
  /** Asks for permission (only here, on the user's click), registers the worker, subscribes, saves. */
  enable(): Promise<void>;
  /** Turns browser notifications off in this browser: the server forgets it, then the browser unsubscribes. */
  disable(): Promise<void>;
  /** Shows or hides the device list, reading it from the server when shown. */
  toggleDevices(): Promise<void>;
  /** Removes one device (this browser's included, which then turns off here). */
  remove(device: BellPushDevice): Promise<void>;
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

/** What the lazily loaded push calls need: the routes, the scope, and the bell's way of signing requests. */
function subscribeContext(): PushSubscribeContext {
  const options = currentBellOptions();
  const { push, authToken, credentials } = options;
  return {
    routes: pushRoutes(options),
    scope: push === false ? undefined : push.scope,
    credentials,
    headers: (write) => authHeaders({ authToken, csrfToken: readCsrfToken }, write),
  };
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const labels = () => currentBellOptions().labels;
// Loaded on a click only: most pages never need it.
const calls = () => import('./push-subscribe.js');

/** Reads the user's devices into the component (its reactive proxy, so the list redraws). */
async function loadDevices(component: NotificationPushComponent): Promise<void> {
  component.error = '';
  try {
    component.devices = await (await calls()).listPushDevices(subscribeContext(), labels().pushUnknownDevice);
  } catch (error) {
    component.error = labels().pushDevicesFailed.replace('{detail}', reasonOf(error));
  }
}

/** The browser notifications component (`x-data="notificationPush"`), inside the bell's panel. */
export function notificationPush(): NotificationPushComponent {
  return {
    state: 'off',
    visible: false,
    error: '',
    devices: [],
    devicesOpen: false,

    async init() {
      const options = currentBellOptions();
      this.visible = options.push !== false && pushSupported() && Notification.permission !== 'denied';
      if (!this.visible || Notification.permission !== 'granted') return;
      // Permission was given before: show "on" when this browser's subscription is already there.
      const routes = pushRoutes(options);
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
        await (await calls()).subscribeThisBrowser(subscribeContext());
        this.state = 'on';
        if (this.devicesOpen) await loadDevices(this);
      } catch (error) {
        this.state = 'failed';
        this.error = labels().pushFailed.replace('{detail}', reasonOf(error));
      }
    },

    async disable() {
      if (this.state === 'working') return;
      this.state = 'working';
      this.error = '';
      try {
        await (await calls()).unsubscribeThisBrowser(subscribeContext());
        this.state = 'off';
        this.devices = this.devices.filter((device) => !device.current);
      } catch (error) {
        this.state = 'on';
        this.error = labels().pushDisableFailed.replace('{detail}', reasonOf(error));
      }
    },

    async toggleDevices() {
      this.devicesOpen = !this.devicesOpen;
      if (this.devicesOpen) await loadDevices(this);
    },

    async remove(device) {
      this.error = '';
      try {
        await (await calls()).removePushDevice(subscribeContext(), device.endpoint);
        this.devices = this.devices.filter((item) => item.endpoint !== device.endpoint);
        if (device.current) this.state = 'off';
      } catch (error) {
        this.error = labels().pushRemoveFailed.replace('{detail}', reasonOf(error));
      }
    },
  };
}
