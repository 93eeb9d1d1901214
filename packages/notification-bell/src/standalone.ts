// The script for a plain <script> tag: it registers with the page's Alpine (one already there, or one that
// starts later in the same page load) or, when the page has none, starts the Alpine bundled in this file.
import Alpine from 'alpinejs';
// The plain-page build writes the package's one stylesheet (dist/notification-bell.css) from this import.
import './styles.css';
import { BELL_EVENTS } from './events.js';
import {
  type AlpineLike,
  make,
  mountNotificationBells,
  notificationBellPlugin,
  notificationStore,
} from './plugin.js';

declare global {
  interface Window {
    Alpine?: AlpineLike & { start?: () => void };
    HeraldNotificationBell?: typeof api;
  }
}

const api = { make, notificationStore, mountNotificationBells, notificationBellPlugin, events: BELL_EVENTS };
window.HeraldNotificationBell = api;

let attached = false;
function attach(alpine: AlpineLike): void {
  if (attached) return;
  attached = true;
  notificationBellPlugin(alpine);
  mountNotificationBells(document);
}

function whenParsed(callback: () => void): void {
  if (document.readyState === 'loading')
    document.addEventListener('DOMContentLoaded', callback, { once: true });
  else callback();
}

/**
 * Runs `callback` once every script of the page load has had its turn. Deferred and module scripts run while
 * readyState is already `interactive`, before DOMContentLoaded: a page Alpine placed after this script (itself
 * a module, or deferred) has not run yet at that point, so `interactive` alone is not late enough. When the
 * script comes in after DOMContentLoaded, `load` is the next sign; when the page is complete, now.
 */
function afterPageScripts(callback: () => void): void {
  if (document.readyState === 'complete') {
    callback();
    return;
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    callback();
  };
  document.addEventListener('DOMContentLoaded', once, { once: true });
  window.addEventListener('load', once, { once: true });
}

const present = window.Alpine;
if (present) {
  whenParsed(() => attach(present));
} else {
  // A page Alpine loaded after this script announces itself with alpine:init just before it walks the page.
  document.addEventListener(
    'alpine:init',
    () => {
      if (window.Alpine) attach(window.Alpine);
    },
    { once: true },
  );
  afterPageScripts(() => {
    if (attached) return;
    if (window.Alpine) {
      // The page's Alpine arrived without an alpine:init seen here (it may start later): register with it.
      attach(window.Alpine);
      return;
    }
    window.Alpine = Alpine;
    attach(Alpine);
    Alpine.start();
  });
}
