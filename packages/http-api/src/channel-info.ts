import { describeChannel, fail, ok, type Result } from '@herald/protocol-core';
import type { ChannelState } from './backend.js';
import { invalid, type ValidationIssue } from './validation.js';

/** The attributes a REST caller may ask for with `info`. */
export type InfoAttribute = 'user_count' | 'subscription_count' | 'cache';

/** The counts reported for a channel in `info` answers. */
export interface ChannelCounts {
  user_count?: number;
  subscription_count?: number;
}

/**
 * Parses a comma-separated `info` value against the attributes a route accepts; an unknown attribute is a 400
 * that names the field.
 */
export function parseInfo(
  value: string | undefined,
  accepted: readonly InfoAttribute[],
  field = 'info',
): Result<ReadonlySet<InfoAttribute>, ValidationIssue> {
  const attributes = new Set<InfoAttribute>();
  if (value === undefined || value === '') return ok(attributes);
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const known = accepted.find((attribute) => attribute === name);
    if (known === undefined) {
      return fail(invalid(field, `unknown attribute '${name}' (accepted: ${accepted.join(', ')})`));
    }
    attributes.add(known);
  }
  return ok(attributes);
}

/**
 * The `user_count` and `subscription_count` asked for, from a channel's state; `user_count` only for presence
 * channels, as Pusher reports it.
 */
export function countsOf(
  name: string,
  state: Pick<ChannelState, 'subscriptionCount' | 'userCount'>,
  attributes: ReadonlySet<InfoAttribute>,
): ChannelCounts {
  const counts: ChannelCounts = {};
  if (attributes.has('user_count') && describeChannel(name).presence)
    counts.user_count = state.userCount ?? 0;
  if (attributes.has('subscription_count')) counts.subscription_count = state.subscriptionCount;
  return counts;
}
