// Apps changed at run time, without a restart and without touching other apps' sockets.

import { ErrorCode } from '@herald/protocol-core';
import { type RealtimeApp, type ResolvedApp, resolveApp } from '../app.js';
import { RealtimeServerError } from '../errors.js';
import { SocketRateLimiter } from '../rate-limits.js';
import { addApp } from './app-registry.js';
import { closeWith } from './send.js';
import type { AppState, ServerContext } from './state.js';

/** What {@link RealtimeServer.upsertApp} did with an app. */
export type AppChange = 'added' | 'updated' | 'disabled' | 'unchanged';

/** The app ids {@link RealtimeServer.setApps} added, changed, disabled (sockets closed) and removed. */
export interface AppChanges {
  readonly added: readonly string[];
  /** Changed apps whose sockets stay open (includes apps enabled again). */
  readonly updated: readonly string[];
  /** Apps that went from enabled to disabled: their sockets were closed with 4003. */
  readonly disabled: readonly string[];
  /** Apps no longer in the list: their sockets were closed with 4001. */
  readonly removed: readonly string[];
}

/** Serves exactly these apps from now on; see {@link RealtimeServer.setApps}. */
export function setApps(ctx: ServerContext, apps: readonly RealtimeApp[]): AppChanges {
  const registry = ctx.apps;
  const configs = apps.map((raw) => resolveApp(raw, registry.fallbacks));
  const duplicate = duplicateOf(configs);
  if (duplicate) throw new RealtimeServerError('invalid_options', `setApps: ${duplicate}`);
  const wanted = new Set(configs.map((config) => config.id));
  const changes = {
    added: [] as string[],
    updated: [] as string[],
    disabled: [] as string[],
    removed: [] as string[],
  };
  for (const appId of [...registry.byId.keys()]) {
    if (!wanted.has(appId) && removeApp(ctx, appId)) changes.removed.push(appId);
  }
  for (const config of configs) {
    const change = applyApp(ctx, config);
    if (change !== 'unchanged')
      changes[change === 'added' ? 'added' : change === 'disabled' ? 'disabled' : 'updated'].push(config.id);
  }
  // Keys may have moved between apps in one change: index them again from the apps as they now are.
  registry.byKey.clear();
  for (const app of registry.byId.values()) registry.byKey.set(app.config.key, app);
  return changes;
}

/** Adds an app or replaces its config in place; see {@link RealtimeServer.upsertApp}. */
export function upsertApp(ctx: ServerContext, raw: RealtimeApp): AppChange {
  const config = resolveApp(raw, ctx.apps.fallbacks);
  const holder = ctx.apps.byKey.get(config.key);
  if (holder && holder.config.id !== config.id) {
    throw new RealtimeServerError(
      'invalid_options',
      `upsertApp: the key "${config.key}" belongs to app ${holder.config.id}`,
    );
  }
  return applyApp(ctx, config);
}

/** Stops serving an app, closing its sockets with 4001; false when no app has this id. */
export function removeApp(ctx: ServerContext, appId: string): boolean {
  const registry = ctx.apps;
  const app = registry.byId.get(appId);
  if (!app) return false;
  registry.byId.delete(appId);
  if (registry.byKey.get(app.config.key) === app) registry.byKey.delete(app.config.key);
  // Each socket still holds the state, so its close handler cleans up channels and cluster counts as usual.
  closeAppSockets(app, ErrorCode.AppNotFound, 'Application was removed');
  app.cache.clear();
  ctx.history.forget(appId);
  ctx.logger.info('app removed', { scope: 'socket.server.apps', appId });
  return true;
}

function applyApp(ctx: ServerContext, config: ResolvedApp): AppChange {
  const registry = ctx.apps;
  const existing = registry.byId.get(config.id);
  if (!existing) {
    addApp(registry, ctx.metrics, config);
    ctx.logger.info('app added', { scope: 'socket.server.apps', appId: config.id });
    return 'added';
  }
  const before = existing.config;
  if (JSON.stringify(before) === JSON.stringify(config)) return 'unchanged';
  if (before.key !== config.key) {
    if (registry.byKey.get(before.key) === existing) registry.byKey.delete(before.key);
    registry.byKey.set(config.key, existing);
  }
  if (JSON.stringify(before.connectionLimits) !== JSON.stringify(config.connectionLimits)) {
    existing.limiter = new SocketRateLimiter(config.connectionLimits, config.id);
  }
  existing.config = config;
  // History turned off: what it held is dropped, so turning it on again starts a new epoch.
  if (before.history && !config.history) ctx.history.forget(config.id);
  if (before.enabled && !config.enabled) {
    closeAppSockets(existing, ErrorCode.AppDisabled, 'Application is disabled');
    ctx.logger.info('app disabled', { scope: 'socket.server.apps', appId: config.id });
    return 'disabled';
  }
  ctx.logger.info('app updated', { scope: 'socket.server.apps', appId: config.id });
  return 'updated';
}

function closeAppSockets(app: AppState, code: number, message: string): void {
  for (const ws of [...app.sockets]) closeWith(ws, app, code, message);
}

function duplicateOf(configs: readonly ResolvedApp[]): string | undefined {
  for (const field of ['id', 'key'] as const) {
    const seen = new Set<string>();
    for (const config of configs) {
      if (seen.has(config[field])) return `two apps have the ${field} "${config[field]}"`;
      seen.add(config[field]);
    }
  }
  return undefined;
}
