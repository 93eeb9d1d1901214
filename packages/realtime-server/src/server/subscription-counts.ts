// `pusher_internal:subscription_count`, throttled and trailing: a change (here, or told by another node) schedules
// one update of the channel after the app's interval; the count is read when the update goes out, so a burst of
// joins costs one frame per interval and the last frame always carries the count after the burst. Each node tells
// its own subscribers.

import {
  type ChannelTraits,
  type ClusterChannelCounts,
  encodeSubscriptionCount,
} from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { deliverLocal } from './fan-out.js';
import { clusterFailed, guard } from './guard.js';
import type { AppState, ServerContext } from './state.js';

/** A subscription on this node changed a channel's count: tell the cluster and schedule an update. */
export function countChanged(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  traits: ChannelTraits,
): void {
  if (!app.config.subscriptionCount || traits.presence) return;
  ctx.cluster.broadcast({ type: 'count', appId: app.config.id, channel });
  app.counts.changedHere.add(channel);
  scheduleCount(ctx, app, channel);
}

/** Schedules one update of the channel's count, unless one is due already. */
export function scheduleCount(ctx: ServerContext, app: AppState, channel: string): void {
  if (app.counts.due.has(channel)) return;
  const timer = setTimeout(() => {
    app.counts.due.delete(channel);
    sendCount(ctx, app, channel);
  }, app.config.subscriptionCountIntervalMs);
  timer.unref();
  app.counts.due.set(channel, timer);
}

function sendCount(ctx: ServerContext, app: AppState, channel: string): void {
  const local = app.channels.get(channel)?.subscribers ?? 0;
  const report = app.counts.changedHere.delete(channel);
  if (local <= 0) {
    app.counts.told.delete(channel);
    // The last local subscriber left: the count others see is told by them (none left: the channel is vacated).
    if (report && ctx.events.has('subscriptionCount')) reportCount(ctx, app, channel);
    return;
  }
  const counts = ctx.cluster.channel(app.config.id, channel);
  if (!isPending(counts)) {
    tellCount(ctx, app, channel, Math.max(counts.subscriptionCount, local), report);
    return;
  }
  counts.then(
    guard(ctx.logger, 'subscription count', (cluster: ClusterChannelCounts) =>
      tellCount(ctx, app, channel, Math.max(cluster.subscriptionCount, local), report),
    ),
    (error: unknown) => {
      clusterFailed(ctx.logger, 'subscription count')(error);
      tellCount(ctx, app, channel, local, report);
    },
  );
}

/** Sends this node's subscribers the channel's count unless they were told it already; `report` raises the event. */
function tellCount(ctx: ServerContext, app: AppState, channel: string, count: number, report: boolean): void {
  // The app may have been reloaded meanwhile: only its current state is told.
  if (ctx.apps.byId.get(app.config.id) !== app || !app.channels.has(channel)) return;
  if (report) {
    ctx.events.emit('subscriptionCount', { appId: app.config.id, channel, count }, ctx.reportListenerError);
  }
  if (app.counts.told.get(channel) === count) return;
  app.counts.told.set(channel, count);
  deliverLocal(ctx, app, channel, encodeSubscriptionCount(channel, count));
}

/** A node with no subscribers left still reports the count its change left behind (for webhooks). */
function reportCount(ctx: ServerContext, app: AppState, channel: string): void {
  const emit = (counts: ClusterChannelCounts) => {
    if (counts.subscriptionCount <= 0) return;
    const count = counts.subscriptionCount;
    ctx.events.emit('subscriptionCount', { appId: app.config.id, channel, count }, ctx.reportListenerError);
  };
  const counts = ctx.cluster.channel(app.config.id, channel);
  if (isPending(counts)) {
    counts.then(
      guard(ctx.logger, 'subscription count', emit),
      clusterFailed(ctx.logger, 'subscription count'),
    );
  } else emit(counts);
}
