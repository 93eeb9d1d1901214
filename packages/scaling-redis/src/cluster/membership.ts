import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { NodeContext } from './context.js';

/** A node's place in a node-set key: whether it holds any of what the key counts (subscribers, signed-in sockets). */
export interface Membership {
  readonly node: string;
  readonly appId: string;
  /** The channel or user id the key is about. */
  readonly name: string;
  readonly holds: boolean;
}

/**
 * Records in a node-set key (a channel's subscribers, a user's signed-in sockets) whether `node` holds any; answers
 * +1 when that made the set non-empty cluster-wide, -1 when it emptied it, 0 otherwise (or when `quiet`, for
 * rewriting a share Redis may have lost). This node's own acknowledged memberships are kept in `acked`.
 */
export async function markMembership(
  context: NodeContext,
  key: string,
  member: Membership,
  options: { readonly acked: Map<string, Set<string>>; readonly quiet: boolean },
): Promise<number> {
  const { node, appId, name, holds } = member;
  const reply = await runScript(context.link, lua.occupancy, [key], [node, holds ? '1' : '0']);
  if (node === context.nodeId) {
    const names = options.acked.get(appId) ?? new Set<string>();
    options.acked.set(appId, names);
    if (holds) names.add(name);
    else names.delete(name);
  }
  return options.quiet ? 0 : Number(reply);
}
