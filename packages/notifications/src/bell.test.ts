import { describe, expect, it } from 'vitest';
import { escapeHtml, renderNotificationBell } from './bell.js';
import type { NotificationStore } from './store.js';

const assets = { scriptUrl: '/assets/bell.js', cssUrl: '/assets/bell.css' };

function optionsOf(html: string): Record<string, unknown> {
  const match = /data-options="([^"]*)"/.exec(html);
  const raw = (match?.[1] ?? '')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
  return JSON.parse(raw) as Record<string, unknown>;
}

describe('renderNotificationBell', () => {
  it('fills the user, the unread count from the store, the channel and the defaults', async () => {
    const asked: unknown[] = [];
    const store = {
      unreadCount: async (owner: unknown) => {
        asked.push(owner);
        return 4;
      },
    } as unknown as NotificationStore;
    const bell = await renderNotificationBell({
      user: { id: 42, name: 'Ada <admin>' },
      store,
      csrfToken: 'tok"en',
      assets,
      options: { broadcasting: { broadcaster: 'wsproto', wsprotoKey: 'key', wsprotoPort: 6001 } },
    });
    expect(asked).toEqual([{ type: 'User', id: '42' }]);
    expect(optionsOf(bell.html)).toEqual({
      mode: 'dropdown',
      position: 'right',
      theme: 'auto',
      pollInterval: 30000,
      enablePolling: true,
      perPage: 10,
      markReadOnClick: true,
      apiUrl: '/notification/notifications/unread.json',
      userId: 42,
      userName: 'Ada <admin>',
      unreadCount: 4,
      broadcasting: {
        broadcaster: 'wsproto',
        wsprotoKey: 'key',
        wsprotoPort: 6001,
        authEndpoint: '/broadcasting/auth',
        channel: 'private-User.42',
      },
    });
    expect(bell.html).not.toContain('<admin>');
    expect(bell.tags).toEqual({
      meta: '<meta name="csrfToken" content="tok&quot;en">',
      css: '<link rel="stylesheet" href="/assets/bell.css">',
      js: '<script type="module" src="/assets/bell.js"></script>',
    });
  });

  it('keeps what the options give and does not ask the store for a given count', async () => {
    const store = {
      unreadCount: async () => {
        throw new Error('not expected');
      },
    } as unknown as NotificationStore;
    const bell = await renderNotificationBell({
      user: { id: 1 },
      store,
      assets,
      options: { unreadCount: 9, userId: 'override', mode: 'panel', enablePolling: false },
    });
    expect(bell.options).toMatchObject({
      unreadCount: 9,
      userId: 'override',
      mode: 'panel',
      enablePolling: false,
      broadcasting: false,
    });
  });

  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
