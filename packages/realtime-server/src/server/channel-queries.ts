// What the REST API asks about channels and connections, answered by the cluster adapter (cluster-wide, or this
// node's own state when it serves alone). Apps this node does not serve have nothing.

import { describeChannel } from '@herald/protocol-core';
import type { HistoryList } from '../history/types.js';
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
  if (!ctx.apps.byId.has(appId)) return [];
  return ctx.cluster.channels(appId, prefix);
}

/** Occupancy, counts and cached event of one channel. */
export async function readChannel(ctx: ServerContext, appId: string, name: string): Promise<ChannelDetails> {
  const traits = describeChannel(name);
  if (!ctx.apps.byId.has(appId)) {
    return { occupied: false, subscriptionCount: 0, ...(traits.presence ? { userCount: 0 } : {}) };
  }
  const cluster = ctx.cluster;
  const [counts, cached] = await Promise.all([
    cluster.channel(appId, name),
    traits.cache ? cluster.cachedEvent(appId, name) : undefined,
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

/** User ids present in a presence channel. */
export async function listPresenceUsers(ctx: ServerContext, appId: string, name: string): Promise<string[]> {
  if (!ctx.apps.byId.has(appId)) return [];
  return ctx.cluster.presenceUsers(appId, name);
}

/** Sockets open for an app. */
export async function countConnections(ctx: ServerContext, appId: string): Promise<number> {
  if (!ctx.apps.byId.has(appId)) return 0;
  return ctx.cluster.connectionCount(appId);
}

/**
 * Kept events of a channel after a serial, for the REST history route; `undefined` when the app serves no history
 * (unknown here, or history off).
 */
export async function listHistory(
  ctx: ServerContext,
  appId: string,
  name: string,
  query: { readonly afterSerial: number; readonly limit: number },
): Promise<HistoryList | undefined> {
  const limits = ctx.apps.byId.get(appId)?.config.history;
  if (limits === undefined) return undefined;
  return ctx.history.list(appId, name, query, limits);
}
