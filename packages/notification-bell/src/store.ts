import { type NotificationClient, UNREACHABLE } from './client.js';
import { isBellError } from './errors.js';
import { type BellNotification, normalizeNotification } from './notification.js';
import type { BellFilter, BellLabels } from './options.js';
import { DEFAULT_LABELS } from './options.js';

/** The window events the bell dispatches, each with the `detail` it carries. */
export const BELL_EVENTS = {
  received: 'notification:received',
  markedRead: 'notification:marked-read',
  allMarkedRead: 'notification:all-marked-read',
  deleted: 'notification:deleted',
} as const;

/** The events the server publishes on the user's private channel when stored notifications change. */
export const LIVE_EVENTS = {
  created: 'notification.created',
  markedRead: 'notification.marked-read',
  allMarkedRead: 'notification.marked-all-read',
  deleted: 'notification.deleted',
  deletedAll: 'notification.deleted-all',
} as const;

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
  /** The tab shown: every notification, or only the unread ones. */
  filter: BellFilter;
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

function defaultEmit(name: string, detail: unknown): void {
  globalThis.dispatchEvent?.(new CustomEvent(name, { detail }));
}

/** A failure in words fit for the user, in the bell's language when the request said what failed. */
function messageOf(error: unknown, labels: BellLabels): string {
  if (isBellError(error) && error.operation) {
    const unreachable = error.detail === UNREACHABLE;
    return labels.failed(error.operation, unreachable ? labels.unreachable : (error.detail ?? ''));
  }
  if (isBellError(error)) return error.message;
  return error instanceof Error ? `Something went wrong: ${error.message}` : 'Something went wrong.';
}

function countOf(payload: unknown): number | undefined {
  const count = (payload as { unread_count?: unknown } | null)?.unread_count;
  return typeof count === 'number' ? count : undefined;
}

function idOf(payload: unknown): string | undefined {
  const id = (payload as { notification_id?: unknown } | null)?.notification_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Creates the store's state and methods. Methods read and write state through `this`, so that under
 * `Alpine.store` every change goes through Alpine's reactive proxy.
 *
 * @example
 * Alpine.store('notifications', createBellStore());
 */
export function createBellStore(initial: { unreadCount?: number } = {}): BellStore {
  let deps: BellStoreDeps | undefined;
  const need = (): BellStoreDeps => {
    if (!deps) throw new Error('the notifications store is used before a bell configured it');
    return deps;
  };
  const emit = (name: string, detail: unknown) => (deps?.emit ?? defaultEmit)(name, detail);
  // Each load of a whole list gets a number: an answer to an older one (the other tab, say) is dropped.
  let loads = 0;
  // The message of the last failed load, cleared by the next load that succeeds (not other failures).
  let loadFailure: string | null = null;

  return {
    items: [],
    serverUnread: initial.unreadCount ?? 0,
    filter: 'all',
    get unreadCount(): number {
      let held = 0;
      let heldFromServer = 0;
      for (const item of this.items) {
        if (item.readAt !== null) continue;
        held += 1;
        if (!item.local) heldFromServer += 1;
      }
      return held + Math.max(0, this.serverUnread - heldFromServer);
    },
    set unreadCount(count: number) {
      this.serverUnread = count;
    },
    isLoading: false,
    hasMore: false,
    isOpen: false,
    currentPage: 0,
    loaded: false,
    error: null,
    announcement: '',
    connection: 'off',
    now: Date.now(),

    configure(next) {
      deps = next;
      if (next.filter) this.filter = next.filter;
    },

    addNotification(notification) {
      if (this.items.some((item) => item.id === notification.id)) return false;
      this.items.unshift({ ...notification, isNew: true });
      // One more unread on the server too (a local one is counted as held, never by the server).
      if (notification.readAt === null && !notification.local) this.serverUnread += 1;
      this.announcement = (deps?.labels ?? DEFAULT_LABELS).received(notification.title);
      const id = notification.id;
      setTimeout(() => {
        const item = this.items.find((candidate) => candidate.id === id);
        if (item) item.isNew = false;
      }, deps?.highlightMs ?? 5000);
      emit(BELL_EVENTS.received, notification);
      return true;
    },

    async markAsRead(id) {
      const item = this.items.find((candidate) => candidate.id === id);
      if (!item || item.readAt !== null) return;
      let unread: number | undefined;
      if (!item.local) {
        try {
          unread = (await need().client.markRead(id)).unreadCount;
        } catch (error) {
          this.error = messageOf(error, need().labels);
          return;
        }
      }
      if (item.readAt !== null) return; // a live event marked it meanwhile, and said so
      item.readAt = new Date().toISOString();
      if (!item.local) this.serverUnread = unread ?? Math.max(0, this.serverUnread - 1);
      emit(BELL_EVENTS.markedRead, { notificationId: id });
    },

    async markAllAsRead() {
      let unread: number | undefined;
      try {
        unread = (await need().client.markAllRead()).unreadCount;
      } catch (error) {
        this.error = messageOf(error, need().labels);
        return;
      }
      const readAt = new Date().toISOString();
      const unreadItems = this.items.filter((item) => item.readAt === null);
      for (const item of unreadItems) item.readAt = readAt;
      this.serverUnread = unread ?? 0;
      // Once: the server's own live event may have got here first, and said so already.
      if (unreadItems.length > 0 || this.items.length === 0) {
        emit(BELL_EVENTS.allMarkedRead, { unreadCount: this.unreadCount });
      }
    },

    async deleteNotification(id) {
      const item = this.items.find((candidate) => candidate.id === id);
      if (!item) return;
      let unread: number | undefined;
      if (!item.local) {
        try {
          unread = (await need().client.remove(id)).unreadCount;
        } catch (error) {
          this.error = messageOf(error, need().labels);
          return;
        }
      }
      const index = this.items.findIndex((candidate) => candidate.id === id);
      if (index === -1) return; // a live event removed it meanwhile, and said so
      this.items.splice(index, 1);
      if (!item.local) {
        this.serverUnread = unread ?? Math.max(0, this.serverUnread - (item.readAt === null ? 1 : 0));
      }
      emit(BELL_EVENTS.deleted, { notificationId: id });
    },

    async loadNotifications(page = 1, append = false) {
      const { client, perPage } = need();
      const filter = this.filter;
      const load = ++loads;
      this.isLoading = true;
      try {
        const result = await client.list(page, perPage, filter);
        if (load !== loads) return; // another load (the other tab, say) was started meanwhile: it stands
        const fresh = result.records.flatMap((record) => {
          const notification = normalizeNotification(record);
          return notification ? [notification] : [];
        });
        if (append) {
          for (const notification of fresh) {
            if (!this.items.some((item) => item.id === notification.id)) this.items.push(notification);
          }
        } else {
          const local = this.items.filter((item) => item.local && (filter === 'all' || item.readAt === null));
          this.items = [...local, ...fresh];
        }
        this.hasMore = result.hasNextPage;
        this.currentPage = page;
        if (result.unreadCount !== undefined) this.serverUnread = result.unreadCount;
        this.loaded = true;
        this.error = null;
      } catch (error) {
        if (load === loads) {
          this.error = messageOf(error, need().labels);
          loadFailure = this.error;
        }
      } finally {
        if (load === loads) this.isLoading = false;
      }
    },

    async loadMore() {
      if (this.isLoading || !this.hasMore) return;
      // The list held is a prefix of the server's (new ones arrive at its head, deleted or read-and-gone ones
      // leave it), so the page that follows it is the one its length ends in: overlap is skipped by id.
      const { perPage } = need();
      const unreadFeed = this.filter === 'unread';
      const held = this.items.filter((item) => !item.local && (!unreadFeed || item.readAt === null)).length;
      await this.loadNotifications(Math.floor(held / perPage) + 1, true);
    },

    async refresh() {
      if (!this.loaded) {
        await this.loadNotifications(1, false);
        return;
      }
      const { client, perPage } = need();
      const filter = this.filter;
      try {
        const result = await client.list(1, perPage, filter);
        if (filter !== this.filter) return;
        const fresh = result.records.flatMap((record) => {
          const notification = normalizeNotification(record);
          return notification ? [notification] : [];
        });
        // Only ones newer than the newest held are new: older unseen ones have moved up from page 2 after a
        // read or a delete, and belong to loadMore. Oldest first, so each lands on top in the server's order.
        const newest = this.items.find((item) => !item.local)?.createdAt ?? '';
        for (const notification of fresh.reverse()) {
          const held = this.items.find((item) => item.id === notification.id);
          if (held) {
            if (held.readAt === null && notification.readAt !== null) held.readAt = notification.readAt;
          } else if (notification.createdAt >= newest) {
            this.addNotification(notification);
          }
        }
        // After the additions, which counted themselves: the server's own count is the truth.
        if (result.unreadCount !== undefined) this.serverUnread = result.unreadCount;
        if (this.error === loadFailure) this.error = null;
      } catch (error) {
        this.error = messageOf(error, need().labels);
        loadFailure = this.error;
      }
    },

    applyLiveEvent(event, payload) {
      const count = countOf(payload);
      switch (event) {
        case LIVE_EVENTS.markedRead: {
          const id = idOf(payload);
          const item = this.items.find((candidate) => candidate.id === id);
          if (item && item.readAt === null) {
            item.readAt = new Date().toISOString();
            if (count === undefined) this.serverUnread = Math.max(0, this.serverUnread - 1);
            emit(BELL_EVENTS.markedRead, { notificationId: item.id });
          }
          break;
        }
        case LIVE_EVENTS.allMarkedRead: {
          const readAt = new Date().toISOString();
          const unread = this.items.filter((item) => item.readAt === null);
          for (const item of unread) item.readAt = readAt;
          if (count === undefined) this.serverUnread = 0;
          if (unread.length > 0) emit(BELL_EVENTS.allMarkedRead, { unreadCount: count ?? 0 });
          break;
        }
        case LIVE_EVENTS.deleted: {
          const id = idOf(payload);
          const index = this.items.findIndex((candidate) => candidate.id === id);
          if (index !== -1) {
            const [gone] = this.items.splice(index, 1);
            if (count === undefined && gone?.readAt === null) {
              this.serverUnread = Math.max(0, this.serverUnread - 1);
            }
            emit(BELL_EVENTS.deleted, { notificationId: id });
          }
          break;
        }
        case LIVE_EVENTS.deletedAll:
          this.items = this.items.filter((item) => item.local);
          this.hasMore = false;
          if (count === undefined) this.serverUnread = 0;
          break;
        default: {
          // Any other event is a new notification (an app may name it with broadcastAs()).
          const notification = normalizeNotification(payload);
          if (notification) this.addNotification(notification);
          return;
        }
      }
      if (count !== undefined) this.serverUnread = count;
    },

    async setFilter(filter) {
      if (filter === this.filter) return;
      this.filter = filter;
      this.hasMore = false;
      this.currentPage = 0;
      // Loaded again below: until it answers, the old tab's items would show under the new tab's name.
      this.items = this.items.filter((item) => item.local && (filter === 'all' || item.readAt === null));
      await this.loadNotifications(1, false);
    },

    toggle() {
      this.setOpen(!this.isOpen);
    },

    setOpen(open) {
      this.isOpen = open;
      if (open && !this.loaded && !this.isLoading && deps) void this.loadNotifications(1, false);
    },

    dismissError() {
      this.error = null;
    },
  };
}
