import { notificationChannelName } from './broadcaster.js';
import type { NotificationUser } from './notification-user.js';
import type { NotificationStore } from './store.js';

/** How the bell hears about new notifications live: Herald's real-time server (`wsproto`) or a hub over SSE. */
export interface BellBroadcasting {
  readonly broadcaster: 'wsproto' | 'hub';
  readonly wsprotoKey?: string | undefined;
  readonly wsprotoHost?: string | undefined;
  readonly wsprotoPort?: number | undefined;
  readonly wsprotoCluster?: string | undefined;
  readonly hubUrl?: string | undefined;
  /** Where private channels are authorised (default `/broadcasting/auth`). */
  readonly authEndpoint?: string | undefined;
  /** The private channel to listen on (the user's `private-{type}.{id}` by default). */
  readonly channel?: string | undefined;
}

/** The bell widget's options, as the widget reads them from its `data-options` attribute. */
export interface BellOptions {
  readonly mode?: 'dropdown' | 'panel' | undefined;
  readonly position?: 'left' | 'right' | undefined;
  readonly theme?: 'light' | 'dark' | 'auto' | undefined;
  readonly pollInterval?: number | undefined;
  readonly enablePolling?: boolean | undefined;
  readonly perPage?: number | undefined;
  readonly unreadCount?: number | undefined;
  readonly markReadOnClick?: boolean | undefined;
  readonly userId?: string | number | undefined;
  readonly userName?: string | undefined;
  /** The JSON API's list URL (default `/notification/notifications/unread.json`). */
  readonly apiUrl?: string | undefined;
  readonly broadcasting?: BellBroadcasting | false | undefined;
  /**
   * A user token (see `signUserToken`) the bell sends as `Authorization: Bearer <token>` to the JSON API and
   * the broadcasting auth endpoint instead of the CSRF header.
   */
  readonly authToken?: string | undefined;
  /** Whether the bell's requests carry cookies: `same-origin` (default), `include` or `omit`. */
  readonly credentials?: 'same-origin' | 'include' | 'omit' | undefined;
  /** Which notifications the list shows first: `all` (default) or `unread`. */
  readonly filter?: 'all' | 'unread' | undefined;
  /** Show the "All" and "Unread" tabs (default true). */
  readonly tabs?: boolean | undefined;
  /** The bell's language (`en`, `de`, `fr` ship; default: the page's `lang`). */
  readonly locale?: string | undefined;
  /** The bell's words as data, over the shipped table for `locale` (keys as the bell's strings table). */
  readonly strings?: Readonly<Record<string, string>> | undefined;
  /** The "Turn on browser notifications" control: where its service worker is, or `false` to leave it out. */
  readonly push?: { readonly serviceWorkerUrl?: string; readonly scope?: string } | false | undefined;
}

/** What {@link renderNotificationBell} needs: the options, the user, and where the bell's assets are served. */
export interface RenderBellInput {
  readonly options?: BellOptions | undefined;
  /** The signed-in user: gives `userId`, `userName` and the default channel when the options do not. */
  readonly user?: NotificationUser | undefined;
  /** Used to count unread notifications when `options.unreadCount` is not given. */
  readonly store?: NotificationStore | undefined;
  /** The page's CSRF token, written into the `csrfToken` meta tag that the bell sends on writes. */
  readonly csrfToken?: string | undefined;
  readonly assets: { readonly scriptUrl: string; readonly cssUrl: string };
}

/** The bell's markup and tags, to place in a page: `meta` and `css` in the head, `html` where the bell goes, `js` anywhere. */
export interface RenderedBell {
  readonly html: string;
  readonly tags: { readonly meta: string; readonly css: string; readonly js: string };
  /** The options as written into the markup, with every default filled in. */
  readonly options: BellOptions & { readonly unreadCount: number };
}

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * Renders the bell's server side: the widget's markup with its options (unread count from the store and user
 * from the identity when not given), and the CSRF meta, CSS and JS tags.
 *
 * @example
 * const bell = await renderNotificationBell({ user, store, csrfToken, assets: { scriptUrl, cssUrl } });
 */
export async function renderNotificationBell(input: RenderBellInput): Promise<RenderedBell> {
  const given = input.options ?? {};
  const user = input.user;
  const owner = user ? { type: user.type ?? 'User', id: String(user.id) } : undefined;
  const unreadCount = given.unreadCount ?? (owner && input.store ? await input.store.unreadCount(owner) : 0);
  const broadcasting =
    given.broadcasting && owner
      ? {
          authEndpoint: '/broadcasting/auth',
          channel: notificationChannelName(owner),
          ...given.broadcasting,
        }
      : (given.broadcasting ?? false);
  const options = {
    mode: 'dropdown' as const,
    position: 'right' as const,
    theme: 'auto' as const,
    pollInterval: 30_000,
    enablePolling: true,
    perPage: 10,
    markReadOnClick: true,
    apiUrl: '/notification/notifications/unread.json',
    ...given,
    userId: given.userId ?? user?.id,
    userName: given.userName ?? user?.name,
    unreadCount,
    broadcasting,
  };
  const html = `<div class="notifications-wrapper" data-notification-bell data-options="${escapeHtml(JSON.stringify(options))}"></div>`;
  return {
    html,
    options,
    tags: {
      meta: `<meta name="csrfToken" content="${escapeHtml(input.csrfToken ?? '')}">`,
      css: `<link rel="stylesheet" href="${escapeHtml(input.assets.cssUrl)}">`,
      js: `<script type="module" src="${escapeHtml(input.assets.scriptUrl)}"></script>`,
    },
  };
}
