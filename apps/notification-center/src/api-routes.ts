import {
  type AwayDelivery,
  CSRF_HEADER,
  createNotificationApi,
  createPushSubscriptionApi,
  createSendApi,
  createUserAuth,
  createUserTokenVerifier,
  type NotificationBroadcaster,
  type NotificationLogger,
  type NotificationStore,
  type NotificationUser,
  type Notifier,
  type UserTokenVerifier,
} from '@herald/notifications';
import type { Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { answerChannelAuth } from './broadcasting-auth.js';
import type { CenterConfig } from './config.js';
import type { CenterPush } from './push-wiring.js';
import type { Sessions } from './session.js';

/** What the API routes are served from. */
export interface ApiRoutesOptions {
  readonly config: CenterConfig;
  readonly store: NotificationStore;
  readonly notifier: Notifier;
  readonly broadcaster: NotificationBroadcaster | undefined;
  readonly sessions: Sessions;
  readonly logger: NotificationLogger;
  /** Learns users' email addresses from their tokens' `email` claim. */
  readonly away: AwayDelivery;
  /** Web Push: its key and subscription routes are user routes too. */
  readonly push: CenterPush;
}

/** A verifier that also keeps the email address a valid token carries, for away delivery. */
function rememberingAddresses(
  verifier: UserTokenVerifier,
  away: AwayDelivery,
  logger: NotificationLogger,
): UserTokenVerifier {
  return {
    async verify(token) {
      const result = await verifier.verify(token);
      if (result.ok && result.value.email) {
        const owner = { type: result.value.type ?? 'User', id: String(result.value.id) };
        await away.rememberAddress(owner, 'email', result.value.email).catch((error: unknown) => {
          // The request goes on: an address not kept now is kept at the next request.
          logger.warn('could not keep an email address', { owner: owner.id, err: (error as Error).message });
        });
      }
      return result;
    },
  };
}

/** The routes a host page's browser calls: the JSON API, preferences and channel authorisation. */
const USER_ROUTES = [
  '/notification/notifications.json',
  '/notification/notifications/*',
  '/notification/preferences.json',
  '/notification/push/*',
  '/broadcasting/auth',
];

/**
 * Mounts the send API (server to server, by the API secret) and the user routes (the JSON API, preferences and
 * `/broadcasting/auth`), each user route open to the configured origins.
 */
export async function mountApiRoutes(app: Hono, options: ApiRoutesOptions): Promise<void> {
  const { config, store, notifier, broadcaster, sessions, logger, away, push } = options;
  // One identity for every user route: a bearer user token, else the demo session cookie plus CSRF on writes.
  const userAuth = {
    userTokens: rememberingAddresses(await createUserTokenVerifier(config.userTokens), away, logger),
    authenticate: (c: Context) => sessions.user(c),
    csrfToken: (_c: Context, user: NotificationUser) => sessions.csrfToken(user),
  };
  const identify = createUserAuth(userAuth);

  // Host pages on other origins call the user routes with a bearer token; the send API is server to server only.
  if (config.corsOrigins.length > 0) {
    const corsFor = cors({
      origin: (origin) =>
        config.corsOrigins.includes('*') || config.corsOrigins.includes(origin) ? origin : null,
      allowMethods: ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'],
      // What the bell sends: its token, JSON or form bodies, `Accept`, and `X-Requested-With` on API calls.
      allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Requested-With', CSRF_HEADER],
      maxAge: 600,
    });
    for (const path of USER_ROUTES) app.use(path, corsFor);
  }

  app.route('/', createSendApi({ notifier, store, secret: config.apiSecret, types: config.types, logger }));
  app.route(
    '/',
    createNotificationApi({
      store,
      logger,
      ...userAuth,
      channels: notifier.channelNames,
      onChange: broadcaster ? (owner, change) => broadcaster.publishChange(owner, change) : undefined,
    }),
  );

  app.route(
    '/',
    createPushSubscriptionApi({
      ...userAuth,
      subscriptions: push.subscriptions,
      publicKey: push.publicKey,
      // The service posts to every saved endpoint: only the push services' hosts (NOTIFICATION_PUSH_ENDPOINTS).
      endpointAllowed: push.endpointAllowed,
      logger,
    }),
  );

  app.post('/broadcasting/auth', async (c) => {
    const outcome = await identify(c, { write: true });
    if (!outcome.ok) {
      const status = outcome.code === 'unauthenticated' ? 401 : 403;
      return c.json({ error: { code: outcome.code, message: outcome.message } }, status);
    }
    if (!config.realtime)
      return c.json({ error: { code: 'not_configured', message: 'no real-time server' } }, 404);
    return answerChannelAuth(c, config.realtime, outcome.user);
  });
}
