import { type AppFallbacks, type RealtimeApp, type ResolvedApp, resolveApp } from '../app.js';
import type { ServerMetrics } from '../metrics.js';
import { SocketRateLimiter } from '../rate-limits.js';
import type { AppRegistry, AppState } from './state.js';

export function createAppRegistry(fallbacks: AppFallbacks): AppRegistry {
  return { byKey: new Map(), byId: new Map(), fallbacks, generation: 0, serial: 0 };
}

/** Replaces every app with a new generation of them (a reload); sockets of the old ones are closed beforehand. */
export function loadApps(registry: AppRegistry, metrics: ServerMetrics, apps: readonly RealtimeApp[]): void {
  registry.generation += 1;
  registry.byKey.clear();
  registry.byId.clear();
  for (const raw of apps) addApp(registry, metrics, resolveApp(raw, registry.fallbacks));
}

/** Starts serving an app with empty state and topics of its own. */
export function addApp(registry: AppRegistry, metrics: ServerMetrics, config: ResolvedApp): void {
  registry.serial += 1;
  const state: AppState = {
    config,
    topicPrefix: `${registry.generation}.${registry.serial}:`,
    sockets: new Set(),
    channels: new Map(),
    cache: new Map(),
    users: new Map(),
    userRoutes: new Map(),
    watchers: new Map(),
    metrics: metrics.forApp(config.id),
    limiter: new SocketRateLimiter(config.connectionLimits, config.id),
    counts: { due: new Map(), told: new Map(), changedHere: new Set() },
    holds: undefined,
    authDeadlines: new Map(),
  };
  registry.byKey.set(config.key, state);
  registry.byId.set(config.id, state);
}
