import {
  CSRF_HEADER,
  createBroadcastChannel,
  createBroadcaster,
  createDatabaseChannel,
  createNotificationApi,
  createNotificationStore,
  createNotifier,
  createSendApi,
  createUserAuth,
  createUserTokenVerifier,
  escapeHtml,
  type Notification,
  type NotificationChannel,
  type NotificationLogger,
  type NotificationStore,
  type NotificationUser,
  type Notifier,
  renderNotificationBell,
  signUserToken,
} from '@herald/notifications';
import { safeEqual } from '@herald/protocol-core';
import { createTeamChatChannels, TeamChatMessage } from '@herald/teamchat-channel';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { installedBellAssets } from './bell-assets.js';
import { answerChannelAuth } from './broadcasting-auth.js';
import type { CenterConfig } from './config.js';
import { createSessions, DEMO_USERS } from './session.js';

/** The composed service: its hono app, the store and sender it uses, and how to close them. */
export interface NotificationCenter {
  readonly app: Hono;
  readonly store: NotificationStore;
  readonly notifier: Notifier;
  close(): Promise<void>;
}

/** The notification the demo form sends. */
class DemoNotification implements Notification {
  readonly type = 'DemoNotification';
  constructor(
    private readonly channels: readonly string[],
    private readonly title: string,
    private readonly message: string,
  ) {}
  via() {
    return this.channels;
  }
  toDatabase() {
    return { title: this.title, message: this.message, icon: 'bell' as const };
  }
  toTeamChat() {
    return TeamChatMessage.create()
      .text(`*${this.title}*`)
      .attachment((attachment) => attachment.text(this.message).color('good'));
  }
}

/** The routes a host page's browser calls: the JSON API, preferences and channel authorisation. */
const USER_ROUTES = [
  '/notification/notifications.json',
  '/notification/notifications/*',
  '/notification/preferences.json',
  '/broadcasting/auth',
];

/** How long the token the demo page gets lives; the page asks `/demo/token.json` for a fresh one. */
const DEMO_TOKEN_SECONDS = 15 * 60;

const BELL_ASSETS = {
  scriptUrl: '/assets/notification-bell/notification-bell.js',
  cssUrl: '/assets/notification-bell/notification-bell.css',
};

// The demo page's own look, in the bell's palette: light or dark with the system, or as the `theme` query asks;
// the bell follows. Every text keeps WCAG AA contrast in both.
const DEMO_CSS = `<style>
:root{color-scheme:light dark;--bg:#f6f7fb;--card:#fff;--text:#111827;--muted:#4b5563;--line:#e5e7eb;--accent:#4f46e5;--on-accent:#fff;--soft:#eef2ff}
html.dark{--bg:#0b1020;--card:#111827;--text:#f3f4f6;--muted:#9ca3af;--line:#273244;--accent:#818cf8;--on-accent:#0b1020;--soft:#1e1b4b;color-scheme:dark}
@media (prefers-color-scheme:dark){html:not(.light){--bg:#0b1020;--card:#111827;--text:#f3f4f6;--muted:#9ca3af;--line:#273244;--accent:#818cf8;--on-accent:#0b1020;--soft:#1e1b4b}}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
.topbar{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;padding:8px 16px;background:var(--card);border-bottom:1px solid var(--line)}
.topbar .brand{font-weight:700;margin-right:auto}.topbar .who{color:var(--muted)}
main{max-width:760px;margin:0 auto;padding:8px 16px 48px}
h1{font-size:24px;letter-spacing:-.01em}h2{font-size:17px;margin:28px 0 10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px}
main form{display:flex;flex-wrap:wrap;gap:12px;align-items:end}
label{display:flex;flex-direction:column;gap:4px;font-size:13px;font-weight:600;color:var(--muted)}
input,select,button{font:inherit}
input,select{padding:7px 10px;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--text)}
button{padding:7px 14px;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--text);font-weight:600;cursor:pointer}
button.primary{border-color:transparent;background:var(--accent);color:var(--on-accent)}
.pill{display:inline-block;min-width:1.5em;padding:0 8px;border-radius:999px;background:var(--soft);color:var(--accent);font-weight:700;text-align:center}
#latest{margin:0;padding:0;list-style:none}#latest li{padding:10px 0;border-bottom:1px solid var(--line)}#latest li:last-child{border-bottom:0}
#latest .new{margin-right:6px;color:var(--accent);font-weight:700}#latest .msg{color:var(--muted)}
</style>`;

// A bell drawn inline, so the page needs no favicon file (and the browser's request for one never fails).
const FAVICON = `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#4f46e5" d="M6 16v-5a6 6 0 0 1 12 0v5l1.5 2h-15z"/><path fill="#4f46e5" d="M10 20.5a2 2 0 0 0 4 0z"/></svg>',
)}">`;

function page(title: string, head: string, body: string, theme?: 'light' | 'dark'): string {
  // Dark through the `dark` class and light through data-theme: the bell understands both.
  const attrs =
    theme === 'dark' ? ' class="dark"' : theme === 'light' ? ' class="light" data-theme="light"' : '';
  return `<!doctype html>
<html lang="en"${attrs}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${FAVICON}${DEMO_CSS}${head}</head>
<body>${body}</body></html>`;
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
  const app = new Hono();

  // One identity for every user route: a bearer user token, else the demo session cookie plus CSRF on writes.
  const userAuth = {
    userTokens: await createUserTokenVerifier(config.userTokens),
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

  app.route('/', createSendApi({ notifier, store, secret: config.apiSecret, logger }));
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

  // The demo page is a client of the user-token scheme: the service signs a token for the signed-in demo user.
  const demoToken = (user: NotificationUser) =>
    signUserToken({
      secret: config.userTokens.secret,
      userId: user.id,
      userType: user.type,
      name: user.name,
      audience: config.userTokens.audience,
      issuer: config.userTokens.issuer,
      expiresIn: DEMO_TOKEN_SECONDS,
    });
  app.get('/demo/token.json', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.json({ error: { code: 'unauthenticated', message: 'sign in first' } }, 401);
    return c.json({ token: await demoToken(user), expires_in: DEMO_TOKEN_SECONDS });
  });

  // The bell's files are public: a host page on any origin may load them as module scripts, which browsers
  // fetch with CORS (its live-push chunks too).
  app.use('/assets/notification-bell/*', cors({ origin: '*' }));
  const bellAssetsDir = config.bellAssetsDir ?? installedBellAssets();
  if (bellAssetsDir) {
    app.use(
      '/assets/notification-bell/*',
      serveStatic({
        root: bellAssetsDir,
        rewriteRequestPath: (path) => path.replace(/^\/assets\/notification-bell/, ''),
      }),
    );
  }

  app.get('/login', (c) => {
    const options = DEMO_USERS.map(
      (u) => `<option value="${escapeHtml(String(u.id))}">${escapeHtml(u.name ?? String(u.id))}</option>`,
    );
    return c.html(
      page(
        'Sign in',
        '',
        `<main><h1>Sign in (demo)</h1><form class="card" method="post" action="/login"><label>User <select name="user">${options.join('')}</select></label> <button class="primary">Sign in</button></form></main>`,
      ),
    );
  });
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const ok = await sessions.signIn(c, String(form.user ?? ''));
    return ok ? c.redirect('/', 303) : c.text('unknown demo user', 422);
  });
  app.post('/logout', (c) => {
    sessions.signOut(c);
    return c.redirect('/login', 303);
  });

  app.get('/', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.redirect('/login', 303);
    const csrfToken = sessions.csrfToken(user);
    const realtime = config.realtime ? new URL(config.realtime.url) : undefined;
    // The demo shows the bell's two layouts and themes: /?mode=panel&position=left&theme=dark.
    const query = c.req.query();
    const theme = query.theme === 'dark' || query.theme === 'light' ? query.theme : undefined;
    const bell = await renderNotificationBell({
      user,
      store,
      csrfToken,
      assets: BELL_ASSETS,
      options: {
        // `/?auth=token`: the bell authenticates with a token the service signed, as a host page's bell would.
        authToken: query.auth === 'token' ? await demoToken(user) : undefined,
        mode: query.mode === 'panel' ? 'panel' : 'dropdown',
        position: query.position === 'left' ? 'left' : 'right',
        broadcasting:
          realtime && config.realtime
            ? {
                broadcaster: 'wsproto',
                wsprotoKey: config.realtime.key,
                wsprotoHost: realtime.hostname,
                wsprotoPort: Number(realtime.port || (realtime.protocol === 'https:' ? 443 : 80)),
              }
            : false,
      },
    });
    const recent = await store.list(
      { type: user.type ?? 'User', id: String(user.id) },
      { page: 1, limit: 10 },
    );
    // With the bell on the page, the count and the list are the bell's own store, so they follow it live;
    // without its assets, they are what the store held when the page was rendered.
    const items = bellAssetsDir
      ? `<template x-for="item in $store.notifications.items.slice(0, 5)" :key="item.id"><li><span class="new" x-show="!item.readAt">new</span><strong x-text="item.title"></strong> <span class="msg" x-text="item.message"></span></li></template>`
      : recent.records
          .map(
            (r) =>
              `<li>${r.read_at ? '' : '<span class="new">new</span>'}<strong>${escapeHtml(r.data.title)}</strong> <span class="msg">${escapeHtml(r.data.message)}</span></li>`,
          )
          .join('');
    const unread = bellAssetsDir
      ? `<span id="unread-count" class="pill" x-data x-text="$store.notifications.unreadCount">${recent.unreadCount}</span>`
      : `<span id="unread-count" class="pill">${recent.unreadCount}</span>`;
    return c.html(
      page(
        'Notification center',
        `${bell.tags.meta}${bellAssetsDir ? bell.tags.css : ''}`,
        `<header class="topbar"><span class="brand">Herald</span><span class="who">Signed in as ${escapeHtml(user.name ?? String(user.id))}</span> ${bell.html}
<form method="post" action="/logout" style="display:inline"><button>Sign out</button></form></header>
<main><h1>Notification center</h1>
<p>Unread: ${unread}. Channels: ${escapeHtml(notifier.channelNames.join(', '))}.</p>
<h2>Send a test notification</h2>
<form class="card" method="post" action="/demo/send">
<input type="hidden" name="_csrf" value="${escapeHtml(csrfToken)}">
<label>Title <input name="title" required value="Hello"></label>
<label>Message <input name="message" required value="A test notification"></label>
<button class="primary">Send through every channel</button></form>
<h2>Latest</h2><ul id="latest" class="card"${bellAssetsDir ? ' x-data' : ''}>${items}</ul></main>
${bellAssetsDir ? bell.tags.js : ''}`,
        theme,
      ),
    );
  });

  app.post('/demo/send', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.redirect('/login', 303);
    const form = await c.req.parseBody();
    if (!safeEqual(String(form._csrf ?? ''), sessions.csrfToken(user)))
      return c.text('CSRF token mismatch', 403);
    const notification = new DemoNotification(
      notifier.channelNames,
      String(form.title ?? ''),
      String(form.message ?? ''),
    );
    const report = await notifier.send({ ...user, type: user.type ?? 'User' }, notification);
    if (!report.ok) {
      const lines = report.failures.map(
        (f) => `<li>${escapeHtml(f.channel)}: ${escapeHtml(f.error.message)}</li>`,
      );
      return c.html(
        page('Not sent', '', `<h1>Some channels failed</h1><ul>${lines.join('')}</ul><a href="/">Back</a>`),
        422,
      );
    }
    return c.redirect('/', 303);
  });

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
