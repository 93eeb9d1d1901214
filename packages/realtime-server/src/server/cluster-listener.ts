// What the other nodes tell this one through the cluster adapter, and the local state it reports to them.

import type {
  ClusterChannelChange,
  ClusterDelivery,
  ClusterListener,
  LocalClusterState,
  LocalPresence,
} from '@herald/protocol-core';
import { deliverLocal } from './fan-out.js';
import { guard } from './guard.js';
import { dropConnections } from './shutdown.js';
import type { ServerContext } from './state.js';
import { scheduleCount } from './subscription-counts.js';
import { terminateLocal } from './terminate.js';
import { tellWatchers } from './watchlists.js';

/** The listener this node starts the cluster with; `onRestart` replaces the default restart (drop every socket). */
export function createClusterListener(
  ctx: ServerContext,
  onRestart: (() => void) | undefined,
): ClusterListener {
  const { logger, events } = ctx;
  const apps = ctx.apps.byId;
  return {
    deliver: guard(logger, 'cluster delivery', (delivery: ClusterDelivery) => {
      const app = apps.get(delivery.appId);
      if (!app) return;
      deliverLocal(ctx, app, delivery.channel, delivery.frame, delivery.excludeSocketId);
    }),
    terminate: guard(logger, 'cluster terminate', (appId: string, userId: string) => {
      terminateLocal(ctx, appId, userId);
    }),
    restart: guard(logger, 'cluster restart', () => {
      logger.info('restart requested through the cluster', { scope: 'socket.server.restart' });
      if (onRestart) onRestart();
      else dropConnections(ctx, 'Server is restarting');
    }),
    localState: () => localState(ctx),
    userChanged: guard(logger, 'cluster user change', (appId: string, userId: string, online: boolean) => {
      const app = apps.get(appId);
      if (app) tellWatchers(app, userId, online);
    }),
    countChanged: guard(logger, 'cluster count change', (appId: string, channel: string) => {
      const app = apps.get(appId);
      if (app?.config.subscriptionCount && app.channels.has(channel)) scheduleCount(ctx, app, channel);
    }),
    debugWatched: (appId: string) => ctx.debug.watchedElsewhere(appId),
    debugRecord: guard(logger, 'cluster debug record', (appId: string, record: string) =>
      ctx.debug.receive(appId, record),
    ),
    channelChanged: guard(logger, 'cluster channel change', (change: ClusterChannelChange) => {
      if (!apps.has(change.appId)) return;
      const { appId, channel } = change;
      if (change.type === 'occupied') {
        events.emit('channelOccupied', { appId, channel }, ctx.reportListenerError);
      } else if (change.type === 'vacated') {
        events.emit('channelVacated', { appId, channel }, ctx.reportListenerError);
      } else events.emit('memberRemoved', { appId, channel, userId: change.userId }, ctx.reportListenerError);
    }),
  };
}

/** This node's connections, subscriptions and presence members, for the cluster to rebuild its share. */
function localState(ctx: ServerContext): LocalClusterState {
  const connections: Array<{ appId: string; count: number }> = [];
  const subscriptions: Array<{ appId: string; channel: string; count: number }> = [];
  const presence: LocalPresence[] = [];
  for (const app of ctx.apps.byId.values()) {
    const appId = app.config.id;
    connections.push({ appId, count: app.sockets.size });
    for (const [channel, state] of app.channels) {
      subscriptions.push({ appId, channel, count: state.subscribers });
      if (!state.roster) continue;
      const { hash } = state.roster.snapshot();
      for (const ws of app.sockets) {
        const data = ws.getUserData();
        const userId = data.presence?.get(channel);
        if (userId !== undefined) {
          presence.push({
            appId,
            channel,
            socketId: data.socketId,
            member: { userId, userInfo: hash[userId] },
          });
        }
      }
    }
  }
  return { connections, subscriptions, presence };
}
