import { BROWSER_LOGS_PATH } from './log-store.js';

// Plain ES2017 so it runs in every browser the dev server serves; it never throws into the page.
const WATCHER = `(() => {
  if (window.__assistWatcher) return;
  window.__assistWatcher = true;
  const endpoint = ${JSON.stringify(BROWSER_LOGS_PATH)};
  const queue = [];
  let timer;
  const serialize = (value, depth, seen) => {
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    if (value === undefined) return 'undefined';
    if (value === null || typeof value !== 'object') return typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function' ? String(value) : value;
    if (seen.has(value)) return '[Circular]';
    if (depth > 3) return Array.isArray(value) ? '[Array]' : '[Object]';
    seen.add(value);
    if (typeof Node !== 'undefined' && value instanceof Node) return '<' + value.nodeName.toLowerCase() + '>';
    if (Array.isArray(value)) return value.slice(0, 50).map((item) => serialize(item, depth + 1, seen));
    const out = {};
    for (const key of Object.keys(value).slice(0, 50)) {
      try { out[key] = serialize(value[key], depth + 1, seen); } catch (error) { out[key] = '[Unreadable]'; }
    }
    return out;
  };
  const send = (beacon) => {
    if (queue.length === 0) return;
    const body = JSON.stringify({ logs: queue.splice(0, 50) });
    if (beacon && navigator.sendBeacon) navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }));
    else fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body, keepalive: true }).catch(() => undefined);
    if (queue.length > 0) schedule();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => send(false), 100);
  };
  const push = (level, args, stack) => {
    if (queue.length >= 500) return;
    const entry = { level, time: new Date().toISOString(), url: location.href, args: args.map((arg) => serialize(arg, 0, new WeakSet())) };
    if (stack) entry.stack = String(stack);
    queue.push(entry);
    schedule();
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[level];
    console[level] = function (...args) {
      try {
        const error = args.find((arg) => arg instanceof Error);
        push(level, args, error && error.stack);
      } catch (error) { /* the page's own logging must never fail because of the watcher */ }
      return original.apply(this, args);
    };
  }
  addEventListener('error', (event) => push('window_error', [event.error || event.message], event.error && event.error.stack));
  addEventListener('unhandledrejection', (event) => push('unhandled_rejection', [event.reason], event.reason && event.reason.stack));
  addEventListener('pagehide', () => send(true));
})();`;

const escapeAttribute = (value: string) => value.replace(/[&"<>]/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The `<script>` tag of the browser watcher, which forwards console output, errors and unhandled rejections
 * to `POST /_assist/browser-logs`; pass the page's CSP nonce when it has one.
 */
export function browserWatcherScript(nonce?: string): string {
  const attribute = nonce ? ` nonce="${escapeAttribute(nonce)}"` : '';
  return `<script data-assist-watcher${attribute}>${WATCHER}</script>`;
}

/** The nonce a Content-Security-Policy header allows scripts with (`script-src 'nonce-…'`), if any. */
export function nonceFromCsp(header: string | null | undefined): string | undefined {
  return header ? /'nonce-([^']+)'/.exec(header)?.[1] : undefined;
}

/** Puts the watcher into an HTML page, as early as possible: before `</head>`, else `</body>`, else at the end. */
export function injectBrowserWatcher(html: string, nonce?: string): string {
  if (html.includes('data-assist-watcher')) return html;
  const tag = browserWatcherScript(nonce);
  const head = html.search(/<\/head>/i);
  if (head !== -1) return html.slice(0, head) + tag + html.slice(head);
  const body = html.search(/<\/body>/i);
  if (body !== -1) return html.slice(0, body) + tag + html.slice(body);
  return html + tag;
}
