// What the REST API asks about channels and connections: cluster-wide from the adapter when clustered, from this
// node's state otherwise.

import { describeChannel } from '@herald/protocol-core';
import { freshCache } from './cache-channels.js';
import type { ServerContext } from './state.js';

/** An occupied channel as the REST API lists it. */
export interface ChannelSummary {
  readonly name: string;
  readonly subscriptionCount: number;
  /** Presence channels only: distinct users. */
  readonly userCount?: number;
}

/** What the REST API reports about one channel. */
export interface ChannelDetails {
  readonly occupied: boolean;
  readonly subscriptionCount: number;
  readonly userCount?: number;
  /** Cache channels holding an event: its data and the seconds it has left. */
  readonly cache?: { readonly event: string; readonly data: string; readonly ttl: number };
}

/** Occupied channels of an app, optionally only those starting with a prefix. */
export async function listChannels(
  ctx: ServerContext,
  appId: string,
  prefix?: string,
): Promise<ChannelSummary[]> {
  const app = ctx.apps.byId.get(appId);
  if (!app) return [];
  if (ctx.cluster) return ctx.cluster.channels(appId, prefix);
  const list: ChannelSummary[] = [];
  for (const [name, state] of app.channels) {
    if (prefix && !name.startsWith(prefix)) continue;
    list.push(
      state.roster
        ? { name, subscriptionCount: state.subscribers, userCount: state.roster.memberCount }
        : { name, subscriptionCount: state.subscribers },
    );
  }
  return list;
}

/** Occupancy, counts and cached event of one channel. */
export async function readChannel(ctx: ServerContext, appId: string, name: string): Promise<ChannelDetails> {
  const app = ctx.apps.byId.get(appId);
  const cluster = ctx.cluster;
  if (cluster && app) {
    const [counts, cached] = await Promise.all([
      cluster.channel(appId, name),
      describeChannel(name).cache ? cluster.cachedEvent(appId, name) : undefined,
    ]);
    return {
      occupied: counts.subscriptionCount > 0,
      ...counts,
      ...(cached
        ? {
            cache: {
              event: cached.event,
              data: cached.data,
              ttl: Math.max(0, Math.round(cached.ttlMs / 1000)),
            },
          }
        : {}),
    };
  }
  const state = app?.channels.get(name);
  const cached = app ? freshCache(app, name) : undefined;
  return {
    occupied: (state?.subscribers ?? 0) > 0,
    subscriptionCount: state?.subscribers ?? 0,
    ...(describeChannel(name).presence ? { userCount: state?.roster?.memberCount ?? 0 } : {}),
    ...(cached
      ? {
          cache: {
            event: cached.event,
            data: cached.data,
            ttl: Math.max(0, Math.round((cached.expiresAt - Date.now()) / 1000)),
          },
        }
      : {}),
  };
}

/** User ids present in a presence channel. */
export async function listPresenceUsers(ctx: ServerContext, appId: string, name: string): Promise<string[]> {
  if (ctx.cluster && ctx.apps.byId.has(appId)) return ctx.cluster.presenceUsers(appId, name);
  return ctx.apps.byId.get(appId)?.channels.get(name)?.roster?.userIds() ?? [];
}

/** Sockets open for an app. */
export async function countConnections(ctx: ServerContext, appId: string): Promise<number> {
  if (ctx.cluster && ctx.apps.byId.has(appId)) return ctx.cluster.connectionCount(appId);
  return ctx.apps.byId.get(appId)?.sockets.size ?? 0;
}
