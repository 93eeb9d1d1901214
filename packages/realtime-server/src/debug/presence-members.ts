// Presence members with their user_info, for an operator console's channel inspector.

import { listPresenceUsers } from '../server/channel-queries.js';
import type { ServerContext } from '../server/state.js';

/** A presence member as an inspector shows it. */
export interface PresenceMemberInfo {
  readonly id: string;
  /** The `user_info` the member joined with; undefined when the member's sockets are all on other nodes. */
  readonly info: unknown;
}

/**
 * The members of a presence channel (cluster-wide, as the REST API lists them), each with the `user_info` this
 * node's roster holds for them: the adapter port carries ids only, and a member joined only on another node is
 * listed without it.
 */
export async function listPresenceMembers(
  ctx: ServerContext,
  appId: string,
  channel: string,
): Promise<PresenceMemberInfo[]> {
  const ids = await listPresenceUsers(ctx, appId, channel);
  const roster = ctx.apps.byId.get(appId)?.channels.get(channel)?.roster;
  const hash = roster ? roster.snapshot().hash : {};
  return ids.map((id) => ({ id, info: hash[id] }));
}
