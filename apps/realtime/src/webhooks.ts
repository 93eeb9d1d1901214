import type { Logger, RealtimeServer } from '@herald/realtime-server';
import {
  batchingFromConfig,
  createWebhookDispatcher,
  dispatcherSettingsFromConfig,
  type WebhookApp,
  type WebhookDispatcher,
  type WebhookQueue,
  webhookEvent,
} from '@herald/webhooks';
import type { RealtimeConfig } from './config-schema.js';

/** The apps the dispatcher serves, swapped whole on a reload (one object per app, as the dispatcher wants). */
export function webhookApps(config: RealtimeConfig): Map<string, WebhookApp> {
  const apps = new Map<string, WebhookApp>();
  for (const app of config.applications) {
    if (app.webhooks.length === 0) continue;
    apps.set(app.id, {
      key: app.key,
      secret: app.secret,
      webhooks: app.webhooks,
      ...(app.webhook_batching ? { batching: batchingFromConfig(app.webhook_batching) } : {}),
    });
  }
  return apps;
}

/** What a running server's webhooks need from the app: swap apps on reload, stop on shutdown. */
export interface RunningWebhooks {
  reload(config: RealtimeConfig): void;
  close(drainMs: number): Promise<void>;
}

/**
 * Sends Pusher's webhooks for a server: every event the server decides once for the cluster (occupied, vacated,
 * members, client events, cache misses, subscription counts) goes to the dispatcher, which filters, batches, signs and retries. Nothing
 * is listened to, nor any dispatcher made, when no app has webhooks.
 */
export function startWebhooks(options: {
  readonly server: RealtimeServer;
  readonly config: RealtimeConfig;
  readonly logger: Logger;
  readonly queue?: WebhookQueue | undefined;
}): RunningWebhooks | undefined {
  let apps = webhookApps(options.config);
  if (apps.size === 0) return undefined;
  const { server } = options;
  const dispatcher: WebhookDispatcher = createWebhookDispatcher({
    apps: (appId) => apps.get(appId),
    ...dispatcherSettingsFromConfig(options.config.webhooks),
    ...(options.queue ? { queue: options.queue } : {}),
    logger: options.logger,
    metrics: server.metrics.registry,
  });
  const emit = dispatcher.emit.bind(dispatcher);
  const events = server.events;
  events.on('channelOccupied', ({ appId, channel }) => emit(appId, webhookEvent.channelOccupied(channel)));
  events.on('channelVacated', ({ appId, channel }) => emit(appId, webhookEvent.channelVacated(channel)));
  events.on('memberAdded', ({ appId, channel, userId }) =>
    emit(appId, webhookEvent.memberAdded(channel, userId)),
  );
  events.on('memberRemoved', ({ appId, channel, userId }) =>
    emit(appId, webhookEvent.memberRemoved(channel, userId)),
  );
  events.on('clientEvent', ({ appId, channel, event, data, socketId, userId }) =>
    emit(appId, webhookEvent.clientEvent({ channel, event, data, socketId, userId })),
  );
  events.on('cacheMiss', ({ appId, channel }) => emit(appId, webhookEvent.cacheMiss(channel)));
  events.on('subscriptionCount', ({ appId, channel, count }) =>
    emit(appId, webhookEvent.subscriptionCount(channel, count)),
  );
  return {
    reload(config) {
      apps = webhookApps(config);
    },
    close: (drainMs) => dispatcher.close({ drainMs }),
  };
}
