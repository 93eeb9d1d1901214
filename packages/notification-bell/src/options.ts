import type { AuthToken } from './auth.js';
import { type BellLabels, type BellStrings, bellLabels } from './strings.js';

export type { BellLabels } from './strings.js';

/** The tabs, in the order shown: the inbox, its unread part, the snoozed and the archived notifications. */
export const BELL_FILTERS = ['all', 'unread', 'snoozed', 'archived'] as const;

/**
 * Which notifications the list shows: the inbox (`all`: neither archived nor snoozed), its unread ones, the
 * snoozed ones or the archived ones.
 */
export type BellFilter = (typeof BELL_FILTERS)[number];

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

/** Where the "Turn on browser notifications" control registers its service worker. */
export interface BellPush {
  /** The worker script; browsers take one from the page's own origin only (default `…/notification/sw.js`). */
  readonly serviceWorkerUrl?: string | undefined;
  /** The worker's scope (default: the script's folder). */
  readonly scope?: string | undefined;
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
  /**
   * The JSON API's list URL, relative to the page or absolute (a service on another origin); the other routes
   * (`….json`, `…/unread.json`, writes) are derived from it.
   */
  readonly apiUrl: string;
  readonly broadcasting: BellBroadcasting | false;
  /**
   * A user token the host's backend signed (e.g. a short-lived JWT), sent as `Authorization: Bearer <token>` on
   * every request to the JSON API and to the broadcasting auth endpoint; with it, no CSRF token is needed. A
   * function is asked before each request (so it can hand out a fresh token); in `data-options` it is a string.
   */
  readonly authToken: AuthToken | undefined;
  /**
   * Whether requests carry cookies: `same-origin` (default), `include` (a cookie session on a service on another
   * origin, which must allow credentials in its CORS answer) or `omit`.
   */
  readonly credentials: RequestCredentials;
  /** The tab shown first: `all` (default), `unread`, `snoozed` or `archived`. */
  readonly filter: BellFilter;
  /** Show the tabs with their counts (default `true`); without them the list keeps to `filter`. */
  readonly tabs: boolean;
  /** The language of words, times and numbers (default: the page's `lang`, then the browser's). */
  readonly locale: string;
  /** The words the bell shows: the shipped table for `locale` with `strings` and `labels` on top. */
  readonly labels: BellLabels;
  /** The "Turn on browser notifications" control: where its worker is, or `false` to leave it out. */
  readonly push: BellPush | false;
}

/** Options as a page or an app gives them: every key optional, `labels` partial. */
export type BellOptionsInput = Partial<Omit<BellOptions, 'labels' | 'theme' | 'locale'>> & {
  readonly theme?: 'light' | 'dark' | 'auto' | null | undefined;
  readonly locale?: string | undefined;
  /** Words as data (JSON-friendly), over the shipped table for `locale`. */
  readonly strings?: Partial<BellStrings> | undefined;
  /** Words as the templates use them (functions for the counted ones), over `strings`. */
  readonly labels?: Partial<BellLabels> | undefined;
};

/** The English words the bell uses unless `locale`, `strings` or `labels` say otherwise. */
export const DEFAULT_LABELS: BellLabels = bellLabels('en');

const CREDENTIALS: readonly RequestCredentials[] = ['same-origin', 'include', 'omit'];

function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

/**
 * Fills every option the input leaves out with its default, and drops values of the wrong kind. `pageLocale`
 * is the language used when the input names none (the bell passes the page's).
 */
export function resolveBellOptions(input: BellOptionsInput = {}, pageLocale = 'en'): BellOptions {
  const locale = typeof input.locale === 'string' && input.locale !== '' ? input.locale : pageLocale;
  const authToken =
    typeof input.authToken === 'string' || typeof input.authToken === 'function'
      ? input.authToken
      : undefined;
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
    authToken: authToken === '' ? undefined : authToken,
    credentials: CREDENTIALS.includes(input.credentials as RequestCredentials)
      ? (input.credentials as RequestCredentials)
      : 'same-origin',
    filter: BELL_FILTERS.find((name) => name === input.filter) ?? 'all',
    tabs: input.tabs !== false,
    locale,
    labels: { ...bellLabels(locale, input.strings), ...input.labels },
    push: input.push === false ? false : typeof input.push === 'object' && input.push ? input.push : {},
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
