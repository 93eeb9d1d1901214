import type { AddressInfo } from 'node:net';
import {
  createNotificationApi,
  createUserAuth,
  createUserTokenVerifier,
  type NotificationStore,
  signUserToken,
} from '@herald/notifications';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { answerChannelAuth } from '../src/broadcasting-auth.js';
import type { RealtimeTarget } from '../src/config.js';

// The notification service as a host page on another origin sees it, composed for the bell's browser tests from
// the real parts: the JSON API and /broadcasting/auth behind real signed user tokens (createUserTokenVerifier,
// the same `createUserAuth` the service uses), the real channel authorisation and hono's CORS middleware for the
// host's origin. A request carrying a bearer token is judged by it alone, and its writes need no CSRF token.

/** The shared secret the host's backend signs its users' tokens with in these tests. */
export const TOKEN_SECRET = 'bell-tests-user-token-secret-0123456789';

/** A user token as the host's backend would sign it (signUserToken, HS256). */
export function tokenFor(userId: string, name?: string): Promise<string> {
  return signUserToken({ secret: TOKEN_SECRET, userId, ...(name ? { name } : {}) });
}

/** A server on a random loopback port: its origin, and how to stop it. */
export interface Listening {
  readonly origin: string;
  stop(): Promise<void>;
}

/** Serves a hono app on a random loopback port. */
export async function listen(app: Hono): Promise<Listening> {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What the token service serves: whose notifications, and the one origin it allows. */
export interface TokenServiceOptions {
  readonly store: NotificationStore;
  readonly allowOrigin: string;
  /** Authorises private channels on this real-time app at `/broadcasting/auth`; none when not given. */
  readonly realtime?: RealtimeTarget | undefined;
}

/** Starts the JSON API and `/broadcasting/auth` behind bearer user tokens and CORS for one origin. */
export async function startTokenService(options: TokenServiceOptions): Promise<Listening> {
  const userTokens = await createUserTokenVerifier({ secret: TOKEN_SECRET });
  const identify = createUserAuth({ userTokens });
  const app = new Hono();
  app.use(
    '*',
    cors({
      origin: options.allowOrigin,
      allowHeaders: ['authorization', 'content-type', 'accept', 'x-requested-with'],
      allowMethods: ['GET', 'POST', 'PATCH', 'DELETE'],
      maxAge: 600,
    }),
  );
  const api = createNotificationApi({ store: options.store, userTokens });
  app.all('/notification/*', (c) => api.fetch(c.req.raw));
  app.post('/broadcasting/auth', async (c) => {
    const outcome = await identify(c, { write: false });
    if (!outcome.ok) return c.json({ error: { code: outcome.code, message: outcome.message } }, 401);
    if (!options.realtime)
      return c.json({ error: { code: 'not_configured', message: 'no real-time server' } }, 404);
    return answerChannelAuth(c, options.realtime, outcome.user);
  });
  return listen(app);
}
