import {
  createBroadcastChannel,
  createBroadcaster,
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  type NotificationChannel,
  type NotificationLogger,
  type NotificationStore,
  type Notifier,
} from '@herald/notifications';
import { createTeamChatChannels } from '@herald/teamchat-channel';
import { Hono } from 'hono';
import { mountApiRoutes } from './api-routes.js';
import { installedBellAssets, serveBellAssets } from './bell-assets.js';
import type { CenterConfig } from './config.js';
import { mountDemoHome } from './demo-home.js';
import { mountDemoRoutes } from './demo-routes.js';
import { createDemoTokenSigner } from './demo-token.js';
import { createSessions } from './session.js';

/** The composed service: its hono app, the store and sender it uses, and how to close them. */
export interface NotificationCenter {
  readonly app: Hono;
  readonly store: NotificationStore;
  readonly notifier: Notifier;
  close(): Promise<void>;
}

/** Opens the store, registers the channels the config allows, and composes every route. */
export async function createNotificationCenter(
  config: CenterConfig,
  logger: NotificationLogger,
): Promise<NotificationCenter> {
  const store = await createNotificationStore({ ...config.database, logger });
  const broadcaster = config.realtime ? createBroadcaster(config.realtime) : undefined;
  const channels: Record<string, NotificationChannel> = { database: createDatabaseChannel({ store }) };
  if (broadcaster) channels.broadcast = createBroadcastChannel({ broadcaster });
  // `teamchat`, `teamchat-alerts`, …: one Rocket.Chat incoming webhook each, from TEAMCHAT_WEBHOOKS.
  const teamChat = createTeamChatChannels(config.teamChatWebhooks, { logger });
  Object.assign(channels, teamChat);
  // Users' channel preferences live in the same store and are checked before any channel runs.
  const notifier = createNotifier({ channels, logger, preferences: store });
  const sessions = createSessions(config.sessionSecret);
  const demoToken = createDemoTokenSigner(config.userTokens);
  const bellAssetsDir = config.bellAssetsDir ?? installedBellAssets();
  const app = new Hono();

  await mountApiRoutes(app, { config, store, notifier, broadcaster, sessions, logger });
  mountDemoRoutes(app, { sessions, notifier, demoToken });
  serveBellAssets(app, bellAssetsDir);
  mountDemoHome(app, { store, notifier, sessions, demoToken, realtime: config.realtime, bellAssetsDir });

  return {
    app,
    store,
    notifier,
    close: async () => {
      await Promise.all(Object.values(teamChat).map((channel) => channel.close()));
      await store.close();
    },
  };
}
