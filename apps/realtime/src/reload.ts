import type { RealtimeServer } from '@herald/realtime-server';
import type { RealtimeConfig, ServerConfig } from './config-schema.js';
import type { RestApi } from './rest-api.js';
import type { ServedApps } from './served-apps.js';
import type { RunningWebhooks } from './webhooks.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What a reload cannot change on a running process: the listening socket, the cluster and the app store. */
function keptUntilRestart(started: RealtimeConfig, next: RealtimeConfig): string[] {
  const settings = started.servers[started.default] as ServerConfig;
  const nextSettings = next.servers[next.default] as ServerConfig;
  const kept = (['host', 'port', 'path', 'options'] as const).filter(
    (key) => !same(nextSettings[key], settings[key]) && !(key === 'port' && nextSettings.port === 0),
  );
  return [
    ...kept.map((key) => `servers.${next.default}.${key} changed: it applies at the next process start`),
    ...(same(next.scaling, started.scaling) ? [] : ['scaling changed: it applies at the next process start']),
    ...(same(next.app_store, started.app_store)
      ? []
      : ['app_store changed: it applies at the next process start']),
  ];
}

/**
 * Restarts in place with a re-read config: the apps, limits and REST API are rebuilt and every socket closes with
 * 4200, on the same listening socket. Returns what could not change without a process restart.
 */
export function reloadRealtime(
  started: RealtimeConfig,
  next: RealtimeConfig,
  parts: {
    readonly server: RealtimeServer;
    readonly apps: ServedApps;
    readonly api: RestApi;
    readonly webhooks: RunningWebhooks | undefined;
  },
): string[] {
  const { server, apps, api, webhooks } = parts;
  // The file's apps are re-read by a restart; a store's apps are already current (it reports every change).
  const served = started.app_store.driver === 'config' ? next.applications : apps.list();
  apps.replace(served, next.rate_limiter);
  api.rebuild(next);
  webhooks?.reload(served);
  server.reload({ apps: apps.forServer() });
  return keptUntilRestart(started, next);
}
