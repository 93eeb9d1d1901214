// Where a presence join is decided: the member's channel_data and the channel's member limit, then this node's
// roster when it serves alone, or the adapter's cluster-wide roster (which may still refuse a full channel).

import {
  type ClientFrame,
  type ClusterAdapter,
  describeChannel,
  encodeMemberAdded,
  encodeSubscriptionSucceeded,
  type PresenceRoster,
  parseChannelData,
  type SubscriptionErrorData,
} from '@herald/protocol-core';
import { replayCache } from './cache-channels.js';
import { awaitConfirmation, takeConfirmation } from './confirmations.js';
import { publishFrom } from './fan-out.js';
import { clusterFailed, guard } from './guard.js';
import { send } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';
import { refuseSubscription } from './subscription-refusal.js';
import { leave } from './unsubscribe.js';

/** A presence channel member: the user id and the info other members see. */
export interface Member {
  readonly userId: string;
  readonly userInfo: unknown;
}

/**
 * The member a presence subscription joins as, from its `channel_data`; undefined once the subscription was
 * refused (bad or oversized data, or, alone, a channel at its member limit).
 */
export function presenceMember(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  frame: Extract<ClientFrame, { type: 'subscribe' }>,
  roster: PresenceRoster | undefined,
): Member | undefined {
  const { channel } = frame;
  const parsed = parseChannelData(frame.channelData ?? '', {
    maxUserInfoBytes: app.config.maxPresenceMemberBytes,
  });
  if (!parsed.ok) {
    const tooLarge =
      parsed.error.reason === 'user_info_too_large' || parsed.error.reason === 'user_id_too_long';
    refuseSubscription(ctx, ws, app, channel, {
      type: tooLarge ? 'LimitReached' : 'InvalidChannel',
      error: parsed.error.message,
      status: 400,
    });
    return undefined;
  }
  const member = parsed.value;
  // In a cluster the adapter's roster applies the limit, cluster-wide.
  if (
    !ctx.cluster &&
    roster &&
    !roster.hasUser(member.userId) &&
    roster.memberCount >= app.config.maxPresenceMembersPerChannel
  ) {
    refuseSubscription(ctx, ws, app, channel, channelFull(app, channel));
    return undefined;
  }
  return member;
}

/**
 * Joins a subscribed socket to the channel's roster and confirms the subscription with the member list. Alone it
 * is confirmed at once (true); in a cluster once the adapter's roster accepted it (false: later, or refused).
 * `routed` is the interest-routing promise of the node's first subscriber to the channel.
 */
export function joinPresence(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  roster: PresenceRoster,
  member: Member,
  routed: void | Promise<void>,
): boolean {
  const data = ws.getUserData();
  if (!data.presence) data.presence = new Map();
  data.presence.set(channel, member.userId);
  const change = roster.join(data.socketId, member);
  if (ctx.cluster) {
    joinClusterPresence(ctx, ws, app, channel, member, change.type === 'member_added', routed);
    return false;
  }
  send(ws, app, encodeSubscriptionSucceeded(channel, roster.snapshot()));
  if (change.type === 'member_added') announceMember(ctx, ws, app, channel, member);
  return true;
}

function joinClusterPresence(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  member: Member,
  newLocally: boolean,
  routed: void | Promise<void>,
): void {
  const data = ws.getUserData();
  const joined = (ctx.cluster as ClusterAdapter).joinPresence({
    appId: app.config.id,
    channel,
    socketId: data.socketId,
    member,
    maxMembers: app.config.maxPresenceMembersPerChannel,
  });
  // Handled from the start: a join that fails before the routing settles must not count as unhandled (which
  // would end the process). The routing promise never rejects, so a failed join still reaches the fallback below.
  joined.catch(() => {});
  const ticket = awaitConfirmation(ctx, data, channel);
  (routed ? routed.then(() => joined) : joined).then(
    guard(ctx.logger, 'presence join', (result: Awaited<ReturnType<ClusterAdapter['joinPresence']>>) => {
      if (!data.open || !takeConfirmation(ctx, data, channel, ticket)) return;
      if (!result.accepted) {
        leave(ctx, ws, app, channel, 'refused');
        refuseSubscription(ctx, ws, app, channel, channelFull(app, channel));
        return;
      }
      send(ws, app, encodeSubscriptionSucceeded(channel, result.snapshot));
      if (result.added) announceMember(ctx, ws, app, channel, member);
      if (describeChannel(channel).cache) replayCache(ctx, ws, app, channel);
    }),
    (error: unknown) => {
      // Redis is away: answer from this node's roster; the adapter rebuilds the cluster share on reconnect.
      clusterFailed(ctx.logger, 'presence join')(error);
      if (!data.open || !takeConfirmation(ctx, data, channel, ticket)) return;
      const roster = app.channels.get(channel)?.roster;
      send(ws, app, encodeSubscriptionSucceeded(channel, roster?.snapshot()));
      if (newLocally) announceMember(ctx, ws, app, channel, member);
    },
  );
}

/** Sends member_added to every other subscriber in the cluster: the joining socket is skipped. */
function announceMember(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  member: Member,
): void {
  ctx.events.emit(
    'memberAdded',
    { appId: app.config.id, channel, userId: member.userId },
    ctx.reportListenerError,
  );
  publishFrom(ctx, ws, app, channel, encodeMemberAdded(channel, member.userId, member.userInfo));
}

function channelFull(app: AppState, channel: string): SubscriptionErrorData {
  return {
    type: 'LimitReached',
    error: `Presence channel ${channel} has reached its limit of ${app.config.maxPresenceMembersPerChannel} members`,
    status: 403,
  };
}
