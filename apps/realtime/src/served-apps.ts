import type { ApiApp } from '@herald/http-api';
import type { RealtimeApp } from '@herald/realtime-server';
import { toApiApp, toRealtimeApp } from './app-options.js';
import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';

type RateLimits = RealtimeConfig['rate_limiter'];

/** The apps a node serves right now, and the rate limits they are served under. */
export interface ServedApps {
  list(): readonly ServedApp[];
  /** The REST API's view of an app: looked up on every request. */
  apiApp(id: string): ApiApp | undefined;
  /** The server's options for these apps (the current ones by default), under the limits in force. */
  forServer(apps?: readonly ServedApp[]): RealtimeApp[];
  /** Serves these apps from now on (once the server took them), under new limits when a reload gives some. */
  replace(apps: readonly ServedApp[], limits?: RateLimits): void;
}

export function createServedApps(initial: readonly ServedApp[], initialLimits: RateLimits): ServedApps {
  let apps = initial;
  let limits = initialLimits;
  // A Map, replaced whole on every change: the REST API reads it without a lock.
  let byId = new Map(apps.map((app) => [app.id, toApiApp(app)]));
  return {
    list: () => apps,
    apiApp: (id) => byId.get(id),
    forServer: (next = apps) => next.map((app) => toRealtimeApp(app, limits)),
    replace(next, nextLimits = limits) {
      apps = next;
      limits = nextLimits;
      byId = new Map(apps.map((app) => [app.id, toApiApp(app)]));
    },
  };
}
