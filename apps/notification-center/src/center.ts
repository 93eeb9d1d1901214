import { createEmailChannel } from '@herald/email-channel';
import {
  type AwayDelivery,
  createAwayDelivery,
  createBroadcastChannel,
  createBroadcaster,
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  createRealtimePresence,
  createUnsubscribeApi,
  createUnsubscribeLinks,
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
import { createCenterPush, serveServiceWorker } from './push-wiring.js';
import { createSessions } from './session.js';

/** The composed service: its hono app, the store and sender it uses, and how to close them. */
export interface NotificationCenter {
  readonly app: Hono;
  readonly store: NotificationStore;
  readonly notifier: Notifier;
  /** Sends away deliveries when their delay ends; started with the center. */
  readonly away: AwayDelivery;
  close(): Promise<void>;
}

/** Opens the store, registers the channels the config allows, and composes every route. */
export async function createNotificationCenter(
  config: CenterConfig,
  logger: NotificationLogger,
): Promise<NotificationCenter> {
  const store = await createNotificationStore({ ...config.database, logger });
  // First, so a VAPID key the store cannot open (NOTIFICATION_STORE_KEY) stops the start before anything else opens.
  const push = await createCenterPush(config, store, logger).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const broadcaster = config.realtime ? createBroadcaster(config.realtime) : undefined;
  const channels: Record<string, NotificationChannel> = { database: createDatabaseChannel({ store }) };
  if (broadcaster) channels.broadcast = createBroadcastChannel({ broadcaster });
  // `teamchat`, `teamchat-alerts`, …: one Rocket.Chat incoming webhook each, from TEAMCHAT_WEBHOOKS.
  const teamChat = createTeamChatChannels(config.teamChatWebhooks, { logger });
  Object.assign(channels, teamChat);
  // `email` when an SMTP server is configured: its links turn email off per type, signed by the service.
  const unsubscribe = createUnsubscribeLinks({ secret: config.unsubscribeSecret, baseUrl: config.publicUrl });
  const email = config.email
    ? createEmailChannel({
        ...config.email,
        logger,
        unsubscribeUrl: (owner, types) => unsubscribe.url(owner, types, 'email'),
      })
    : undefined;
  if (email) channels.email = email;
  // `push`: Web Push to every browser a user turned it on in, with the configured or the store's VAPID keys.
  channels.push = push.channel;
  // Away channels: every channel that reaches a person outside the page (email, team chat, Web Push).
  const awayChannels = Object.fromEntries(
    Object.entries(channels).filter(([name]) => name !== 'database' && name !== 'broadcast'),
  );
  // Who has a bell open: the real-time server's view of each user's private channel (see the README).
  const presence = config.realtime ? createRealtimePresence(config.realtime) : undefined;
  const away = createAwayDelivery({ store, channels: awayChannels, presence, logger });
  // Users' channel preferences live in the same store and are checked before any channel runs.
  const notifier = createNotifier({ channels, logger, preferences: store, away });
  const sessions = createSessions(config.sessionSecret);
  const demoToken = createDemoTokenSigner(config.userTokens);
  const bellAssetsDir = config.bellAssetsDir ?? installedBellAssets();
  const app = new Hono();

  await mountApiRoutes(app, { config, store, notifier, broadcaster, sessions, logger, away, push });
  serveServiceWorker(app);
  app.route('/', createUnsubscribeApi({ store, secret: config.unsubscribeSecret, logger }));
  mountDemoRoutes(app, { sessions, notifier, demoToken });
  serveBellAssets(app, bellAssetsDir);
  mountDemoHome(app, { store, notifier, sessions, demoToken, realtime: config.realtime, bellAssetsDir });

  away.start();
  return {
    app,
    store,
    notifier,
    away,
    close: async () => {
      await away.stop();
      await Promise.all(Object.values(teamChat).map((channel) => channel.close()));
      await email?.close();
      push.close();
      await store.close();
    },
  };
}
