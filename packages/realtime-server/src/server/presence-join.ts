// Where a presence join is decided: the member's channel_data and the channel's member limit, then the cluster
// adapter's roster (cluster-wide, or this node's when it serves alone), which may still refuse a full channel.

import {
  type ClientFrame,
  type ClusterPresenceJoin,
  encodeMemberAdded,
  type HistoryPosition,
  type PresenceRoster,
  parseChannelData,
  type SubscriptionErrorData,
} from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { awaitConfirmation, takeConfirmation } from './confirmations.js';
import { publishFrom } from './fan-out.js';
import { clusterFailed, guard } from './guard.js';
import { confirmSubscription } from './replay.js';
import type { AppState, LiveHold, ServerContext, Socket } from './state.js';
import { refuseSubscription } from './subscription-refusal.js';
import { leave } from './unsubscribe.js';

/** One socket's join of a presence channel: the channel, this node's roster, the member, a replay position. */
export interface PresenceJoin {
  readonly channel: string;
  readonly roster: PresenceRoster;
  readonly member: Member;
  readonly after: HistoryPosition | undefined;
  /** Holds the channel's live frames until confirmed, with history on. */
  readonly hold: LiveHold | undefined;
}

/** A presence channel member: the user id and the info other members see. */
export interface Member {
  readonly userId: string;
  readonly userInfo: unknown;
}

/**
 * The member a presence subscription joins as, from its `channel_data`; undefined once the subscription was
 * refused (bad or oversized data, or a channel whose members on this node alone already reach its limit).
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
  // Refused without asking the adapter when this node alone holds the limit's worth of members; the adapter's
  // roster applies the limit cluster-wide.
  if (
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
 * Joins a subscribed socket to this node's roster and to the cluster adapter's, which decides (a server alone at
 * once, true: confirmed now; a cluster later, false). The adapter may still refuse a full channel. `routed` is the
 * interest-routing promise of the node's first subscriber to the channel.
 */
export function joinPresence(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  join: PresenceJoin,
  routed: void | Promise<void>,
): boolean {
  const { channel, roster, member } = join;
  const data = ws.getUserData();
  if (!data.presence) data.presence = new Map();
  data.presence.set(channel, member.userId);
  const change = roster.join(data.socketId, member);
  const joined = ctx.cluster.joinPresence({
    appId: app.config.id,
    channel,
    socketId: data.socketId,
    member,
    maxMembers: app.config.maxPresenceMembersPerChannel,
  });
  const newLocally = change.type === 'member_added';
  if (!isPending(joined)) {
    if (!routed) return confirmJoin(ctx, ws, app, join, joined);
    awaitJoin(
      ctx,
      ws,
      app,
      join,
      newLocally,
      routed.then(() => joined),
    );
    return false;
  }
  // Handled from the start: a join that fails before the routing settles must not count as unhandled (which
  // would end the process). The routing promise never rejects, so a failed join still reaches the fallback.
  joined.catch(() => {});
  awaitJoin(ctx, ws, app, join, newLocally, routed ? routed.then(() => joined) : joined);
  return false;
}

/** Confirms a join the adapter decided (with its member list), or refuses it; true when confirmed. */
function confirmJoin(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  join: PresenceJoin,
  result: ClusterPresenceJoin,
): boolean {
  const { channel, member } = join;
  if (!result.accepted) {
    leave(ctx, ws, app, channel, 'refused');
    refuseSubscription(ctx, ws, app, channel, channelFull(app, channel));
    return false;
  }
  // The member list is the current one, never replayed; only the channel's events are.
  confirmSubscription(ctx, ws, app, channel, {
    presence: result.snapshot,
    after: join.after,
    hold: join.hold,
  });
  if (result.added) announceMember(ctx, ws, app, channel, member);
  return true;
}

/** Confirms a join once the adapter answers; without it, from this node's roster. */
function awaitJoin(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  join: PresenceJoin,
  newLocally: boolean,
  joined: Promise<ClusterPresenceJoin>,
): void {
  const { channel, member } = join;
  const data = ws.getUserData();
  const ticket = awaitConfirmation(ctx, data, channel);
  joined.then(
    guard(ctx.logger, 'presence join', (result: ClusterPresenceJoin) => {
      if (!data.open || !takeConfirmation(ctx, data, channel, ticket)) return;
      confirmJoin(ctx, ws, app, join, result);
    }),
    (error: unknown) => {
      // Redis is away: answer from this node's roster; the adapter rebuilds the cluster share on reconnect.
      clusterFailed(ctx.logger, 'presence join')(error);
      if (!data.open || !takeConfirmation(ctx, data, channel, ticket)) return;
      const roster = app.channels.get(channel)?.roster;
      confirmSubscription(ctx, ws, app, channel, {
        presence: roster?.snapshot(),
        after: join.after,
        hold: join.hold,
      });
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
  const frame = encodeMemberAdded(channel, member.userId, member.userInfo);
  publishFrom(ctx, ws, app, channel, frame, ws.getUserData().socketId);
}

function channelFull(app: AppState, channel: string): SubscriptionErrorData {
  return {
    type: 'LimitReached',
    error: `Presence channel ${channel} has reached its limit of ${app.config.maxPresenceMembersPerChannel} members`,
    status: 403,
  };
}
