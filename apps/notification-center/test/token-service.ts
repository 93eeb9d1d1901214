import type { AddressInfo } from 'node:net';
import { createNotificationApi, type NotificationStore, type NotificationUser } from '@herald/notifications';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { answerChannelAuth } from '../src/broadcasting-auth.js';
import type { RealtimeTarget } from '../src/config.js';

// The notification service as a host page on another origin sees it, composed for the bell's browser tests
// from the real JSON API, the real channel authorisation and hono's CORS middleware. Its user tokens stand in
// for the service's signed user tokens (issue 18's service half, built elsewhere) and follow the documented
// rule: a request carrying a bearer token is judged by it alone, and its writes need no CSRF token.

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

/** What the token service serves: whose notifications, which tokens, and the one origin it allows. */
export interface TokenServiceOptions {
  readonly store: NotificationStore;
  readonly tokens: Readonly<Record<string, NotificationUser>>;
  readonly allowOrigin: string;
  /** Authorises private channels on this real-time app at `/broadcasting/auth`; none when not given. */
  readonly realtime?: RealtimeTarget | undefined;
}

/** Starts the JSON API and `/broadcasting/auth` behind bearer user tokens and CORS for one origin. */
export function startTokenService(options: TokenServiceOptions): Promise<Listening> {
  const userOf = (c: Context): NotificationUser | undefined => {
    const match = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '');
    return match ? options.tokens[match[1] as string] : undefined;
  };
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
  const api = createNotificationApi({
    store: options.store,
    authenticate: userOf,
    // This API build checks a CSRF token on every write: the token's user is handed the one it expects, only
    // after the bearer token was accepted (the stand-in for "token writes need no CSRF token").
    csrfToken: (_c, user) => `token-session:${user.id}`,
  });
  app.all('/notification/*', (c) => {
    const user = userOf(c);
    if (!user) return api.fetch(c.req.raw);
    const headers = new Headers(c.req.raw.headers);
    headers.set('x-csrf-token', `token-session:${user.id}`);
    return api.fetch(new Request(c.req.raw, { headers }));
  });
  app.post('/broadcasting/auth', (c) => {
    const user = userOf(c);
    if (!user) return c.json({ error: { code: 'unauthenticated', message: 'send a user token' } }, 401);
    if (!options.realtime)
      return c.json({ error: { code: 'not_configured', message: 'no real-time server' } }, 404);
    return answerChannelAuth(c, options.realtime, user);
  });
  return listen(app);
}
