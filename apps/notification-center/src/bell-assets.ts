import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { cors } from 'hono/cors';

/** Where the page loads the bell's script and stylesheet from. */
export const BELL_ASSET_URLS = {
  scriptUrl: '/assets/notification-bell/notification-bell.js',
  cssUrl: '/assets/notification-bell/notification-bell.css',
};

/** The built bell (`notification-bell.js` and `.css`) of the installed `@herald/notification-bell`, if built. */
export function installedBellAssets(): string | undefined {
  try {
    const script = fileURLToPath(import.meta.resolve('@herald/notification-bell/standalone'));
    return existsSync(script) ? dirname(script) : undefined;
  } catch {
    // Not installed, or not built yet: the page then runs without the widget, as the README says.
    return undefined;
  }
}

/** Serves the bell's files from `dir` under `/assets/notification-bell/`, to pages on any origin. */
export function serveBellAssets(app: Hono, dir: string | undefined): void {
  // The bell's files are public: a host page on any origin may load them as module scripts, which browsers
  // fetch with CORS (its live-push chunks too).
  app.use('/assets/notification-bell/*', cors({ origin: '*' }));
  if (!dir) return;
  app.use(
    '/assets/notification-bell/*',
    serveStatic({
      root: dir,
      rewriteRequestPath: (path) => path.replace(/^\/assets\/notification-bell/, ''),
    }),
  );
}
