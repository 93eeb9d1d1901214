// Where a subscribe is decided: the channel name, the signature (private, presence) or sign-in (server-to-user),
// then the join, confirmed at once or once the cluster routes the channel's traffic here (interest routing). Whether
// the join occupied the channel is the cluster adapter's to decide (see `cluster-listener.ts`).

import {
  type ChannelTraits,
  type ClientFrame,
  describeChannel,
  encodeSubscriptionSucceeded,
  PresenceRoster,
  SERVER_TO_USER_PREFIX,
  serverToUserChannel,
  validateChannelName,
  verifyChannelAuth,
} from '@herald/protocol-core';
import { stopAuthDeadline } from './authorization.js';
import { awaitConfirmation, isAwaitingConfirmation, takeConfirmation } from './confirmations.js';
import { clusterFailed, guard } from './guard.js';
import { holdLive } from './live-hold.js';
import { joinPresence, type Member, presenceMember } from './presence-join.js';
import { confirmSubscription } from './replay.js';
import { send, topicOf } from './send.js';
import { hasChannel, withChannel } from './socket-channels.js';
import type { AppState, ChannelState, ServerContext, Socket } from './state.js';
import { countChanged } from './subscription-counts.js';
import { refuseSubscription } from './subscription-refusal.js';

/** Answers `pusher:subscribe`: refuses it, or joins the socket to the channel and confirms. */
export function subscribe(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  frame: Extract<ClientFrame, { type: 'subscribe' }>,
): void {
  const data = ws.getUserData();
  const { channel } = frame;
  const name = validateChannelName(channel, app.config.maxChannelNameLength);
  if (!name.ok) {
    refuseSubscription(ctx, ws, app, channel, {
      type: 'InvalidChannel',
      error: name.error.message,
      status: 400,
    });
    return;
  }
  const traits = describeChannel(channel);
  const existing = app.channels.get(channel);
  if (hasChannel(data.channels, channel)) {
    // Already subscribed (a client retrying): confirm again without joining twice, unless the confirmation is
    // still on its way from the cluster (it answers this retry too).
    if (isAwaitingConfirmation(ctx, data, channel)) return;
    send(ws, app, encodeSubscriptionSucceeded(channel, existing?.roster?.snapshot()));
    return;
  }
  if (traits.kind === 'server-to-user') {
    if (data.userId === undefined || channel !== serverToUserChannel(data.userId)) {
      refuseSubscription(ctx, ws, app, channel, {
        type: 'AuthError',
        error: `Sign in as ${channel.slice(SERVER_TO_USER_PREFIX.length)} before subscribing to ${channel}`,
        status: 403,
      });
      return;
    }
  } else if (traits.requiresAuth) {
    const signed = verifyChannelAuth(app.config, frame.auth, {
      socketId: data.socketId,
      channel,
      channelData: traits.presence ? (frame.channelData ?? '') : undefined,
    });
    if (!signed) {
      refuseSubscription(ctx, ws, app, channel, {
        type: 'AuthError',
        error: `Invalid signature for ${channel}`,
        status: 401,
      });
      return;
    }
    stopAuthDeadline(app, ws);
  }
  let member: Member | undefined;
  if (traits.presence) {
    member = presenceMember(ctx, ws, app, frame, existing?.roster);
    if (!member) return;
  }

  const state = channelState(ctx, app, channel, traits);
  // With history on, the socket joins the topic once confirmed (and replayed): see `live-hold.ts`.
  const hold = app.config.history === undefined ? undefined : holdLive(app, ws, channel);
  if (hold === undefined) ws.subscribe(topicOf(app, channel));
  data.channels = withChannel(data.channels, channel);
  state.subscribers += 1;
  app.metrics.subscriptions.inc();
  if (ctx.debug.active) {
    ctx.debug.emit(app.config.id, { kind: 'subscribed', socketId: data.socketId, channel });
  }
  // With interest routing, the node's first subscriber of a channel waits until the node receives its traffic.
  const routed = ctx.cluster.setLocalSubscriptions(app.config.id, channel, state.subscribers);
  if (app.config.subscriptionCount) countChanged(ctx, app, channel, traits);
  if (member && state.roster) {
    // A join the adapter answers later is confirmed then, with the cache replayed then.
    joinPresence(ctx, ws, app, { channel, roster: state.roster, member, after: frame.after, hold }, routed);
  } else if (routed) {
    const ticket = awaitConfirmation(ctx, data, channel);
    routed.then(
      guard(ctx.logger, 'channel routing', () => {
        if (!data.open || !takeConfirmation(ctx, data, channel, ticket)) return;
        confirmSubscription(ctx, ws, app, channel, { after: frame.after, hold });
      }),
      clusterFailed(ctx.logger, 'channel routing'),
    );
  } else {
    confirmSubscription(ctx, ws, app, channel, { after: frame.after, hold });
  }
}

/** The channel's state on this node, created (and announced as created here) with its first subscriber here. */
function channelState(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  traits: ChannelTraits,
): ChannelState {
  let state = app.channels.get(channel);
  if (!state) {
    state = { subscribers: 0, roster: traits.presence ? new PresenceRoster() : undefined };
    app.channels.set(channel, state);
    ctx.events.emit('channelCreated', { appId: app.config.id, channel }, ctx.reportListenerError);
  }
  return state;
}
