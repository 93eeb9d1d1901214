import { consoleAssetsDir } from '@herald/console';
import type { FetchHandler, RealtimeServer } from '@herald/realtime-server';
import type { ServedApp } from '../app-source.js';
import type { RealtimeConfig } from '../config-schema.js';
import { readAssets } from './assets.js';
import { createConsoleAuth } from './auth.js';
import { createConsoleRoutes } from './routes.js';
import type { ConsoleWebhooks } from './types.js';
import { createUsage, type UsageStore } from './usage.js';

/** The console as the app mounts it: requests under its path go to `fetch`. */
export interface MountedConsole {
  /** Whether a request path belongs to the console. */
  owns(path: string): boolean;
  readonly fetch: FetchHandler;
  close(): void;
}

/** Recent webhook requests kept per app for the console's list and "send again". */
export const CONSOLE_RECENT_DELIVERIES = 50;

/**
 * Builds the operator console when the config turns it on (`console.enabled` with a token): its routes under
 * `{path}/console`, the usage sampler (adding to `usageStore` when clustered), and the front end's files read once.
 */
export function mountConsole(options: {
  readonly config: RealtimeConfig;
  readonly server: RealtimeServer;
  readonly apps: () => readonly ServedApp[];
  readonly webhooks: () => ConsoleWebhooks | undefined;
  /** The usage every node of a cluster adds to (absent alone: this node's own usage is kept in memory). */
  readonly usageStore?: UsageStore | undefined;
}): MountedConsole | undefined {
  const { config, server } = options;
  const settings = config.console;
  if (!settings.enabled || settings.token === undefined) return undefined;
  const path = config.servers[config.default]?.path.replace(/\/+$/, '') ?? '';
  const base = `${path}/console`;
  const usage = createUsage(server, () => options.apps().map((app) => app.id), options.usageStore);
  const routes = createConsoleRoutes({
    server,
    apps: options.apps,
    auth: createConsoleAuth(settings.token, settings.session_hours),
    usage,
    webhooks: options.webhooks,
    path,
    assets: readAssets(consoleAssetsDir),
  });
  return {
    owns: (requestPath) => requestPath === base || requestPath.startsWith(`${base}/`),
    fetch: (request, connection) => routes.fetch(request, connection),
    close: () => usage.stop(),
  };
}
