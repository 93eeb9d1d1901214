/** How the bell hears about changes live: Herald's real-time server over WebSocket, or a Mercure-style hub over SSE. */
export interface BellBroadcasting {
  readonly broadcaster: 'wsproto' | 'hub';
  /** The app key on the real-time server (`wsproto`). */
  readonly wsprotoKey?: string | undefined;
  readonly wsprotoHost?: string | undefined;
  readonly wsprotoPort?: number | undefined;
  readonly wsprotoCluster?: string | undefined;
  /** Use `wss://` (default: when the page itself is served over https). */
  readonly forceTLS?: boolean | undefined;
  /** The hub's subscribe URL, e.g. `https://example.com/.well-known/mercure` (`hub`). */
  readonly hubUrl?: string | undefined;
  /** Where the private channel is authorised (default `/broadcasting/auth`). */
  readonly authEndpoint?: string | undefined;
  /** The private channel to listen on: the user's `private-{type}.{id}` (default `private-User.{userId}`). */
  readonly channel?: string | undefined;
}

/** The words the bell shows; every one can be replaced for another language. */
export interface BellLabels {
  readonly title: string;
  readonly bell: string;
  readonly unread: (count: number) => string;
  /** Said after an unread item's title to screen readers. */
  readonly unreadMark: string;
  readonly markAllRead: string;
  readonly markRead: string;
  readonly delete: string;
  readonly loadMore: string;
  readonly loading: string;
  readonly empty: string;
  readonly emptyHint: string;
  readonly close: string;
  readonly dismiss: string;
  readonly received: (title: string) => string;
  readonly offline: string;
}

/** The bell's options, as `renderNotificationBell` writes them into `data-options`, or as given in code. */
export interface BellOptions {
  /** A dropdown under the bell, or a panel sliding in from the page's side. */
  readonly mode: 'dropdown' | 'panel';
  readonly position: 'left' | 'right';
  /** A fixed theme, or `null`/`'auto'` to follow the page (`data-theme`, `html.dark`, then the system). */
  readonly theme: 'light' | 'dark' | null;
  readonly pollInterval: number;
  readonly enablePolling: boolean;
  readonly perPage: number;
  /** The unread count known when the page was rendered, shown before the first request answers. */
  readonly unreadCount: number | null;
  readonly markReadOnClick: boolean;
  readonly userId: string | number | null;
  readonly userName: string | null;
  /** The JSON API's list URL; the other routes are derived from it. */
  readonly apiUrl: string;
  readonly broadcasting: BellBroadcasting | false;
  /** The language of times and numbers (default: the page's `lang`, then the browser's). */
  readonly locale: string | undefined;
  readonly labels: BellLabels;
}

/** Options as a page or an app gives them: every key optional, `labels` partial. */
export type BellOptionsInput = Partial<Omit<BellOptions, 'labels' | 'theme'>> & {
  readonly theme?: 'light' | 'dark' | 'auto' | null | undefined;
  readonly labels?: Partial<BellLabels> | undefined;
};

/** The English words the bell uses unless `labels` says otherwise. */
export const DEFAULT_LABELS: BellLabels = {
  title: 'Notifications',
  bell: 'Notifications',
  unread: (count) => (count === 1 ? '1 unread' : `${count} unread`),
  unreadMark: 'unread',
  markAllRead: 'Mark all as read',
  markRead: 'Mark as read',
  delete: 'Delete',
  loadMore: 'Load more',
  loading: 'Loading notifications…',
  empty: 'You are all caught up',
  emptyHint: 'New notifications will show up here.',
  close: 'Close',
  dismiss: 'Dismiss',
  received: (title) => `New notification: ${title}`,
  offline: 'Live updates paused, checking periodically',
};

function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

/** Fills every option the input leaves out with its default, and drops values of the wrong kind. */
export function resolveBellOptions(input: BellOptionsInput = {}): BellOptions {
  const theme = input.theme === 'light' || input.theme === 'dark' ? input.theme : null;
  const broadcasting =
    input.broadcasting &&
    (input.broadcasting.broadcaster === 'wsproto' || input.broadcasting.broadcaster === 'hub')
      ? input.broadcasting
      : false;
  return {
    mode: input.mode === 'panel' ? 'panel' : 'dropdown',
    position: input.position === 'left' ? 'left' : 'right',
    theme,
    pollInterval: positiveInteger(input.pollInterval, 30_000),
    enablePolling: input.enablePolling !== false,
    perPage: positiveInteger(input.perPage, 10),
    unreadCount: typeof input.unreadCount === 'number' && input.unreadCount >= 0 ? input.unreadCount : null,
    markReadOnClick: input.markReadOnClick !== false,
    userId: input.userId ?? null,
    userName: input.userName ?? null,
    apiUrl: input.apiUrl ?? '/notification/notifications/unread.json',
    broadcasting,
    locale: input.locale,
    labels: { ...DEFAULT_LABELS, ...input.labels },
  };
}

/** The private channel the bell listens on: the configured one, else `private-User.{userId}`. */
export function liveChannelName(options: BellOptions): string | undefined {
  if (!options.broadcasting) return undefined;
  if (options.broadcasting.channel) return options.broadcasting.channel;
  return options.userId === null ? undefined : `private-User.${options.userId}`;
}

/**
 * How the bell keeps up: `push` when broadcasting is on and polling off (it polls only while the connection
 * is down), `poll` without broadcasting, `combined` with both, `none` with neither.
 */
export function updateMode(options: BellOptions): 'push' | 'poll' | 'combined' | 'none' {
  if (!options.broadcasting) return options.enablePolling ? 'poll' : 'none';
  return options.enablePolling ? 'combined' : 'push';
}
