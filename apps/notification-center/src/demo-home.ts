import {
  escapeHtml,
  type NotificationStore,
  type Notifier,
  renderNotificationBell,
} from '@herald/notifications';
import type { Hono } from 'hono';
import { BELL_ASSET_URLS } from './bell-assets.js';
import type { RealtimeTarget } from './config.js';
import { renderDemoPage } from './demo-page.js';
import type { DemoTokenSigner } from './demo-token.js';
import type { Sessions } from './session.js';

/** What the demo's home page shows and renders its bell with. */
export interface DemoHomeOptions {
  readonly store: NotificationStore;
  readonly notifier: Notifier;
  readonly sessions: Sessions;
  readonly demoToken: DemoTokenSigner;
  readonly realtime: RealtimeTarget | undefined;
  /** Where the bell's built files are served from; without them the page shows what was stored when rendered. */
  readonly bellAssetsDir: string | undefined;
}

/** Mounts `GET /`: the signed-in user's page with the bell, the unread count, the latest and a send form. */
export function mountDemoHome(app: Hono, options: DemoHomeOptions): void {
  const { store, notifier, sessions, demoToken, realtime: target, bellAssetsDir } = options;
  app.get('/', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.redirect('/login', 303);
    const csrfToken = sessions.csrfToken(user);
    const realtime = target ? new URL(target.url) : undefined;
    // The demo shows the bell's two layouts and themes: /?mode=panel&position=left&theme=dark.
    const query = c.req.query();
    const theme = query.theme === 'dark' || query.theme === 'light' ? query.theme : undefined;
    const bell = await renderNotificationBell({
      user,
      store,
      csrfToken,
      assets: BELL_ASSET_URLS,
      options: {
        // `/?auth=token`: the bell authenticates with a token the service signed, as a host page's bell would.
        authToken: query.auth === 'token' ? await demoToken(user) : undefined,
        mode: query.mode === 'panel' ? 'panel' : 'dropdown',
        position: query.position === 'left' ? 'left' : 'right',
        broadcasting:
          realtime && target
            ? {
                broadcaster: 'wsproto',
                wsprotoKey: target.key,
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
      renderDemoPage(
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
}
