// Presence members with their user_info, for an operator console's channel inspector.

import type { ServerContext } from '../server/state.js';

/** A presence member as an inspector shows it. */
export interface PresenceMemberInfo {
  readonly id: string;
  /** The `user_info` the member joined with (null when it gave none). */
  readonly info: unknown;
}

/**
 * The members of a presence channel across the cluster, each with the `user_info` it joined with, wherever its
 * sockets are: the adapter keeps the roster of the whole cluster (in Redis when clustered). Apps this node does not
 * serve have none.
 */
export async function listPresenceMembers(
  ctx: ServerContext,
  appId: string,
  channel: string,
): Promise<PresenceMemberInfo[]> {
  if (!ctx.apps.byId.has(appId)) return [];
  const { ids, hash } = await ctx.cluster.presenceMembers(appId, channel);
  return ids.map((id) => ({ id, info: hash[id] ?? null }));
}
