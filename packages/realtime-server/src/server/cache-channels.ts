// Cache channels keep their last event for the app's TTL and replay it to each new subscriber, or say
// `pusher:cache_miss`. The cluster adapter holds the event for every node; this node's copy is the fallback when
// the adapter cannot be reached.

import { type ClusterCachedEvent, encodeCacheMiss } from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { clusterFailed, guard } from './guard.js';
import { send } from './send.js';
import { hasChannel } from './socket-channels.js';
import type { AppRegistry, AppState, CachedEvent, ServerContext, Socket } from './state.js';

/** Keeps a published event as the channel's cached one, here and in the cluster. */
export function cacheEvent(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  frame: string,
  published: { readonly event: string; readonly data: string },
): void {
  const cached = { frame, event: published.event, data: published.data };
  app.cache.set(channel, { ...cached, expiresAt: Date.now() + app.config.cacheTtlMs });
  ctx.cluster.storeCachedEvent(app.config.id, channel, cached, app.config.cacheTtlMs);
}

/** This node's cached event of a channel, unless it expired (then it is dropped). */
export function freshCache(app: AppState, channel: string): CachedEvent | undefined {
  const cached = app.cache.get(channel);
  if (!cached) return undefined;
  if (cached.expiresAt <= Date.now()) {
    app.cache.delete(channel);
    return undefined;
  }
  return cached;
}

/** This node's cached event of a channel as the cluster port gives it (with the time it has left), if fresh. */
export function localCachedEvent(
  apps: AppRegistry,
  appId: string,
  channel: string,
): ClusterCachedEvent | undefined {
  const app = apps.byId.get(appId);
  const cached = app && freshCache(app, channel);
  if (!cached) return undefined;
  return {
    event: cached.event,
    data: cached.data,
    frame: cached.frame,
    ttlMs: cached.expiresAt - Date.now(),
  };
}

/** Sends a new subscriber the channel's cached event, as the cluster adapter holds it. */
export function replayCache(ctx: ServerContext, ws: Socket, app: AppState, channel: string): void {
  const answer = ctx.cluster.cachedEvent(app.config.id, channel);
  if (!isPending(answer)) {
    sendCached(ctx, ws, app, channel, answer);
    return;
  }
  const data = ws.getUserData();
  answer.then(
    guard(ctx.logger, 'cache replay', (cached: ClusterCachedEvent | undefined) => {
      if (!data.open || !hasChannel(data.channels, channel)) return;
      sendCached(ctx, ws, app, channel, cached);
    }),
    (error: unknown) => {
      clusterFailed(ctx.logger, 'cache read')(error);
      if (!data.open || !hasChannel(data.channels, channel)) return;
      const cached = freshCache(app, channel);
      sendCached(ctx, ws, app, channel, cached);
    },
  );
}

/** Replays the cached event, or says `pusher:cache_miss` (and raises `cacheMiss`) when there is none. */
function sendCached(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  cached: { frame: string } | undefined,
): void {
  if (cached) {
    send(ws, app, cached.frame);
    return;
  }
  send(ws, app, encodeCacheMiss(channel));
  ctx.events.emit('cacheMiss', { appId: app.config.id, channel }, ctx.reportListenerError);
}
