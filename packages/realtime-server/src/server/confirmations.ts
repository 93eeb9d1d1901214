// Subscriptions confirmed later than their subscribe frame: with interest routing once the node receives the
// channel's traffic, in a cluster's presence channel once the roster took the member. One confirmation per
// subscription, however the client retries or resubscribes meanwhile.

import type { ServerContext, SocketData } from './state.js';

/** One subscription's wait: a resubscribe while the previous one still waits gets a new ticket. */
export type Ticket = object;

/** The socket's subscription to `channel` waits for a confirmation from the cluster; answers its ticket. */
export function awaitConfirmation(ctx: ServerContext, data: SocketData, channel: string): Ticket {
  const ticket: Ticket = {};
  const waiting = ctx.confirming.get(data);
  if (waiting) waiting.set(channel, ticket);
  else ctx.confirming.set(data, new Map([[channel, ticket]]));
  return ticket;
}

/** Whether the subscription to `channel` still waits for its confirmation. */
export function isAwaitingConfirmation(ctx: ServerContext, data: SocketData, channel: string): boolean {
  return ctx.confirming.get(data)?.has(channel) ?? false;
}

/**
 * Takes the pending confirmation of `channel` if `ticket` is still the one waiting (any, without a ticket): false
 * when the socket left the channel meanwhile, or resubscribed and waits under a newer ticket.
 */
export function takeConfirmation(
  ctx: ServerContext,
  data: SocketData,
  channel: string,
  ticket?: Ticket,
): boolean {
  const waiting = ctx.confirming.get(data);
  if (waiting === undefined) return false;
  const current = waiting.get(channel);
  if (current === undefined || (ticket !== undefined && current !== ticket)) return false;
  waiting.delete(channel);
  if (waiting.size === 0) ctx.confirming.delete(data);
  return true;
}
