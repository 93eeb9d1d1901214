import type { InboxCounts, NotificationClient } from './client.js';
import type { BellNotification } from './notification.js';
import type { BellFilter, BellLabels } from './options.js';

/** The state of the live connection: none configured, connecting, up, or down (polling covers). */
export type LiveState = 'off' | 'connecting' | 'live' | 'down';

/** What the store needs from its surroundings. */
export interface BellStoreDeps {
  readonly client: NotificationClient;
  readonly perPage: number;
  /** The tab to start on (default: the one the store is on, `all` at first). */
  readonly filter?: BellFilter | undefined;
  readonly labels: BellLabels;
  /** Dispatches a window event (default: `window.dispatchEvent(new CustomEvent(name, { detail }))`). */
  readonly emit?: ((name: string, detail: unknown) => void) | undefined;
  /** How long a new item stays highlighted (default 5000 ms). */
  readonly highlightMs?: number | undefined;
  /** Load the counts per tab beside each list (default true; the bell turns it off without tabs). */
  readonly counts?: boolean | undefined;
  /**
   * Tells the page's other tabs of a change made here, as the live event the server would publish (the bell
   * passes its BroadcastChannel); nothing by default.
   */
  readonly share?: ((event: string, payload: unknown) => void) | undefined;
}

/** The Alpine store `notifications`: the list, the counts, and what can be done to them. */
export interface BellStore {
  items: BellNotification[];
  /**
   * The unread count shown: every unread item held (the page's own included) plus the server's unread beyond
   * the page held. Setting it says what the server counts (e.g. a count known when the page was rendered).
   */
  unreadCount: number;
  /** The server's own unread count, as it last said it (adjusted by the changes the bell has seen since). */
  serverUnread: number;
  /** The tab shown: the inbox, its unread ones, the snoozed or the archived ones. */
  filter: BellFilter;
  /** How many each tab holds, as the server last said; `null` until it has. */
  counts: InboxCounts | null;
  isLoading: boolean;
  hasMore: boolean;
  isOpen: boolean;
  currentPage: number;
  /** Has the first page arrived. */
  loaded: boolean;
  /** The last failure, in words fit for the user; `null` when there is none. */
  error: string | null;
  /** What the polite live region says (a new notification's title). */
  announcement: string;
  connection: LiveState;
  /** The clock that relative times are computed from, ticked by the bell. */
  now: number;
  configure(deps: BellStoreDeps): void;
  addNotification(notification: BellNotification): boolean;
  markAsRead(id: string): Promise<void>;
  markAllAsRead(): Promise<void>;
  deleteNotification(id: string): Promise<void>;
  archive(id: string): Promise<void>;
  unarchive(id: string): Promise<void>;
  /** Archives every read notification in the inbox. */
  archiveAllRead(): Promise<void>;
  /** Hides one until `until`, when it comes back unread. */
  snooze(id: string, until: Date): Promise<void>;
  /** Notes an item as seen; the ones noted close together go to the server in one request. */
  queueSeen(id: string): void;
  /** Loads the counts per tab (a failure keeps the last ones: they are a hint, not the list). */
  loadCounts(): Promise<void>;
  loadNotifications(page?: number, append?: boolean): Promise<void>;
  loadMore(): Promise<void>;
  refresh(): Promise<void>;
  /** Shows the other tab: loads its first page (the page's own notifications stay). */
  setFilter(filter: BellFilter): Promise<void>;
  applyLiveEvent(event: string, payload: unknown): void;
  toggle(): void;
  setOpen(open: boolean): void;
  dismissError(): void;
}
