// The console's HTTP side, mounted under `{path}/console`: the front end's files, the token sign-in, and the JSON
// and server-sent-event routes it reads. Every data route needs a session (401 without), and every state-changing
// one also its CSRF token and a same-origin request.

import { describeChannel, validateChannelName } from '@herald/protocol-core';
import type { DebugEventKind, RealtimeServer } from '@herald/realtime-server';
import type { WebhookDelivery } from '@herald/webhooks';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { ServedApp } from '../app-source.js';
import type { Asset } from './assets.js';
import { type ConsoleAuth, type ConsoleSession, CSRF_HEADER, SESSION_COOKIE } from './auth.js';
import { liveLog } from './live-log.js';
import { signInPage } from './sign-in-page.js';
import type { Usage } from './usage.js';

/** What the console reads of the webhooks (absent when no app has webhooks). */
export interface ConsoleWebhooks {
  recent(appId: string): WebhookDelivery[];
  backlog(appId: string): Promise<number>;
  resend(appId: string, id: string): Promise<'queued' | 'full' | 'not_found'>;
}

export interface ConsoleRoutesOptions {
  readonly server: RealtimeServer;
  readonly apps: () => readonly ServedApp[];
  readonly auth: ConsoleAuth;
  readonly usage: Usage;
  readonly webhooks: () => ConsoleWebhooks | undefined;
  /** The server's `path` prefix ('' when none). */
  readonly path: string;
  readonly assets: ReadonlyMap<string, Asset>;
}

type Env = { Variables: { session: ConsoleSession } };

const KINDS: readonly DebugEventKind[] = [
  'connection_opened',
  'connection_closed',
  'subscribed',
  'unsubscribed',
  'api_message',
  'client_event',
  'webhook_sent',
  'webhook_failed',
];

const publishBody = z
  .object({
    channel: z.string().min(1),
    event: z.string().min(1).max(200),
    data: z.string().max(100_000).default('{}'),
  })
  .strict();

const signInBody = z.object({ token: z.string().min(1).max(1000) });

function fail(c: Context, status: 400 | 401 | 403 | 404 | 409 | 503, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}

/** The console's hono app, answering every request under `{path}/console`. */
export function createConsoleRoutes(options: ConsoleRoutesOptions): Hono<Env> {
  const { server, auth, usage, assets } = options;
  const base = `${options.path}/console`;
  const app = new Hono<Env>({ strict: false }).basePath(base);
  const appOf = (id: string) => options.apps().find((served) => served.id === id);
  const secure = (c: Context) =>
    new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

  const startSession = (c: Context) => {
    setCookie(c, SESSION_COOKIE, auth.issue(), {
      httpOnly: true,
      sameSite: 'Strict',
      secure: secure(c),
      path: base,
      maxAge: Math.floor(auth.sessionMs / 1000),
    });
  };

  /** Same-origin check for state-changing requests: a browser always sends Origin on them. */
  const sameOrigin = (c: Context) => {
    const origin = c.req.header('origin');
    if (origin === undefined) return true;
    const host = c.req.header('host');
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  };

  const serveFile = (c: Context, name: string) => {
    const asset = assets.get(name);
    if (!asset) return fail(c, 404, 'not_found', 'No such file');
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      'cache-control': name === 'index.html' ? 'no-store' : 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
      ...(name === 'index.html' ? { 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' } : {}),
    });
  };

  app.get('/', (c) => {
    const token = c.req.query('token');
    if (token !== undefined) {
      if (!auth.checkToken(token)) {
        return c.html(signInPage(base, 'That token is not this server’s console token.'), 401, {
          'referrer-policy': 'no-referrer',
        });
      }
      startSession(c);
      // Away from the address bar and the history: the token is not left in a URL.
      c.header('referrer-policy', 'no-referrer');
      return c.redirect(`${base}/`, 303);
    }
    if (!new URL(c.req.url).pathname.endsWith('/')) return c.redirect(`${base}/`, 301);
    return serveFile(c, 'index.html');
  });
  app.get('/assets/*', (c) => serveFile(c, c.req.path.slice(base.length + 1)));

  app.post('/api/session', async (c) => {
    if (!sameOrigin(c)) return fail(c, 403, 'cross_origin', 'Sign in from the console’s own page');
    const type = c.req.header('content-type') ?? '';
    const raw = type.includes('json')
      ? await c.req.json().catch(() => undefined)
      : Object.fromEntries(Object.entries(await c.req.parseBody().catch(() => ({}))));
    const body = signInBody.safeParse(raw);
    if (!body.success || !auth.checkToken(body.data.token)) {
      return fail(c, 401, 'bad_token', 'That token is not this server’s console token');
    }
    startSession(c);
    if (!type.includes('json')) return c.redirect(`${base}/`, 303);
    return c.json({ ok: true });
  });

  const requireSession: MiddlewareHandler<Env> = async (c, next) => {
    const session = auth.verify(getCookie(c, SESSION_COOKIE));
    if (!session) return fail(c, 401, 'unauthorized', 'Sign in to the console first');
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!sameOrigin(c)) return fail(c, 403, 'cross_origin', 'Cross-origin requests are refused');
      if (!auth.checkCsrf(session, c.req.header(CSRF_HEADER))) {
        return fail(c, 403, 'csrf', `Missing or wrong ${CSRF_HEADER} header`);
      }
    }
    c.set('session', session);
    await next();
    return undefined;
  };
  app.use('/api/*', requireSession);

  app.get('/api/session', (c) => c.json({ csrf: auth.csrfOf(c.get('session')), csrfHeader: CSRF_HEADER }));
  app.delete('/api/session', (c) => {
    setCookie(c, SESSION_COOKIE, '', { httpOnly: true, sameSite: 'Strict', path: base, maxAge: 0 });
    return c.json({ ok: true });
  });

  app.get('/api/apps', async (c) => {
    const hooks = options.webhooks();
    const apps = await Promise.all(
      options.apps().map(async (served) => {
        const [connections, channels, backlog] = await Promise.all([
          server.connectionCount(served.id),
          server.channels(served.id),
          hooks && served.webhooks.length > 0 ? hooks.backlog(served.id) : 0,
        ]);
        const rates = usage.rates(served.id);
        return {
          id: served.id,
          name: served.name ?? served.id,
          key: served.key,
          enabled: served.enabled,
          connections,
          channels: channels.length,
          messagesPerSecond: { in: round(rates.in), out: round(rates.out) },
          webhooks: served.webhooks.length,
          webhookBacklog: backlog,
        };
      }),
    );
    return c.json({ apps });
  });

  /** The app named in the path, or a 404 answer. */
  const withApp = (c: Context) => {
    const id = c.req.param('id') ?? '';
    return appOf(id);
  };

  app.post('/api/apps/:id/secret', (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    return c.json({ secret: served.secret });
  });

  app.get('/api/apps/:id/log', (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const kinds = c.req
      .query('kind')
      ?.split(',')
      .filter((kind): kind is DebugEventKind => (KINDS as readonly string[]).includes(kind));
    return liveLog(server.debug, served.id, {
      channel: c.req.query('channel') || undefined,
      kinds: kinds && kinds.length > 0 ? new Set(kinds) : undefined,
    });
  });

  app.get('/api/apps/:id/channels', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const channels = await server.channels(served.id, c.req.query('prefix') || undefined);
    channels.sort((a, b) => a.name.localeCompare(b.name));
    return c.json({ channels });
  });

  app.get('/api/apps/:id/channels/:name', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const name = c.req.param('name');
    const details = await server.channel(served.id, name);
    const traits = describeChannel(name);
    const members = traits.presence ? await server.presenceMembers(served.id, name) : undefined;
    return c.json({ name, kind: traits.kind, ...details, ...(members ? { members } : {}) });
  });

  app.post('/api/apps/:id/events', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const body = publishBody.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) {
      const issue = body.error.issues[0];
      return fail(
        c,
        400,
        'invalid_event',
        `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const name = validateChannelName(body.data.channel);
    if (!name.ok) return fail(c, 400, 'invalid_channel', name.error.message);
    server.publish(served.id, {
      channels: [body.data.channel],
      event: body.data.event,
      data: body.data.data,
    });
    return c.json({ ok: true });
  });

  app.get('/api/apps/:id/webhooks', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const hooks = options.webhooks();
    if (!hooks) return c.json({ targets: served.webhooks.length, backlog: 0, deliveries: [] });
    return c.json({
      targets: served.webhooks.length,
      backlog: await hooks.backlog(served.id),
      deliveries: hooks.recent(served.id),
    });
  });

  app.post('/api/apps/:id/webhooks/:delivery/resend', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const hooks = options.webhooks();
    const outcome = hooks ? await hooks.resend(served.id, c.req.param('delivery')) : 'not_found';
    if (outcome === 'not_found') return fail(c, 404, 'not_found', 'No failed delivery with this id');
    if (outcome === 'full') return fail(c, 503, 'queue_full', 'The app’s webhook queue is full');
    return c.json({ ok: true });
  });

  app.get('/api/apps/:id/usage', (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    usage.sample();
    return c.json(usage.series(served.id));
  });

  app.notFound((c) => fail(c, 404, 'not_found', 'No such console route'));
  app.onError((error, c) => fail(c, 503, 'failed', error instanceof Error ? error.message : 'failed'));
  return app;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
