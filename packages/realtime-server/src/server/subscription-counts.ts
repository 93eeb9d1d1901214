// `pusher_internal:subscription_count`, throttled and trailing: a change (here, or told by another node) schedules
// one update of the channel after the app's interval; the count is read when the update goes out, so a burst of
// joins costs one frame per interval and the last frame always carries the count after the burst. Each node tells
// its own subscribers.

import { type ChannelTraits, type ClusterAdapter, encodeSubscriptionCount } from '@herald/protocol-core';
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
  if (ctx.cluster) ctx.cluster.broadcast({ type: 'count', appId: app.config.id, channel });
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
  const { cluster, events } = ctx;
  const local = app.channels.get(channel)?.subscribers ?? 0;
  const report = app.counts.changedHere.delete(channel);
  if (local <= 0) {
    app.counts.told.delete(channel);
    // The last local subscriber left: the count others see is told by them; alone, the channel is vacated.
    if (report && cluster) reportCount(ctx, app, channel);
    return;
  }
  const tell = (count: number) => {
    // The app may have been reloaded meanwhile: only its current state is told.
    if (ctx.apps.byId.get(app.config.id) !== app || !app.channels.has(channel)) return;
    if (report)
      events.emit('subscriptionCount', { appId: app.config.id, channel, count }, ctx.reportListenerError);
    if (app.counts.told.get(channel) === count) return;
    app.counts.told.set(channel, count);
    deliverLocal(ctx, app, channel, encodeSubscriptionCount(channel, count));
  };
  if (!cluster) {
    tell(local);
    return;
  }
  cluster.channel(app.config.id, channel).then(
    guard(ctx.logger, 'subscription count', (counts: Awaited<ReturnType<ClusterAdapter['channel']>>) =>
      tell(Math.max(counts.subscriptionCount, local)),
    ),
    (error: unknown) => {
      clusterFailed(ctx.logger, 'subscription count')(error);
      tell(local);
    },
  );
}

/** A node with no subscribers left still reports the count its change left behind (for webhooks). */
function reportCount(ctx: ServerContext, app: AppState, channel: string): void {
  const { cluster, events } = ctx;
  if (!events.has('subscriptionCount') || !cluster) return;
  cluster.channel(app.config.id, channel).then(
    guard(ctx.logger, 'subscription count', (counts: Awaited<ReturnType<ClusterAdapter['channel']>>) => {
      if (counts.subscriptionCount > 0) {
        events.emit(
          'subscriptionCount',
          { appId: app.config.id, channel, count: counts.subscriptionCount },
          ctx.reportListenerError,
        );
      }
    }),
    clusterFailed(ctx.logger, 'subscription count'),
  );
}
