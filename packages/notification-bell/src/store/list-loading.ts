import type { BellStore } from '../bell-store.js';
import type { NotificationPage } from '../client.js';
import { type BellNotification, normalizeNotification } from '../notification.js';
import type { BellFilter } from '../options.js';
import type { StoreWiring } from './wiring.js';

/** Fetching the list: whole pages, the page after the one held, the head of the list, the other tab. */
export interface ListLoading {
  load(store: BellStore, page: number, append: boolean): Promise<void>;
  loadMore(store: BellStore): Promise<void>;
  refresh(store: BellStore): Promise<void>;
  setFilter(store: BellStore, filter: BellFilter): Promise<void>;
}

function notificationsOf(result: NotificationPage): BellNotification[] {
  return result.records.flatMap((record) => {
    const notification = normalizeNotification(record);
    return notification ? [notification] : [];
  });
}

/** The page's own notifications that a list of this tab keeps. */
function localKept(store: BellStore, filter: BellFilter): BellNotification[] {
  return store.items.filter((item) => item.local && (filter === 'all' || item.readAt === null));
}

/** Creates a store's list loading, with the order of its loads and its last failure of its own. */
export function createListLoading(wiring: StoreWiring): ListLoading {
  // Each load of a whole list gets a number: an answer to an older one (the other tab, say) is dropped.
  let loads = 0;
  // The message of the last failed load, cleared by the next load that succeeds (not other failures).
  let loadFailure: string | null = null;

  return {
    async load(store, page, append) {
      const { client, perPage } = wiring.need();
      const filter = store.filter;
      const load = ++loads;
      store.isLoading = true;
      try {
        const result = await client.list(page, perPage, filter);
        if (load !== loads) return; // another load (the other tab, say) was started meanwhile: it stands
        const fresh = notificationsOf(result);
        if (append) {
          for (const notification of fresh) {
            if (!store.items.some((item) => item.id === notification.id)) store.items.push(notification);
          }
        } else {
          // An item held already keeps its object, brought up to date: its component (x-for keeps the element
          // of the same key) goes on reading that object, so a new one would leave it showing the old state.
          const held = new Map(store.items.map((item) => [item.id, item]));
          const kept = fresh.map((item) => {
            const same = held.get(item.id);
            return same ? Object.assign(same, item, { isNew: same.isNew }) : item;
          });
          store.items = [...localKept(store, filter), ...kept];
        }
        store.hasMore = result.hasNextPage;
        store.currentPage = page;
        if (result.unreadCount !== undefined) store.serverUnread = result.unreadCount;
        store.loaded = true;
        store.error = null;
        if (!append) void store.loadCounts();
      } catch (error) {
        if (load === loads) {
          store.error = wiring.describe(error);
          loadFailure = store.error;
        }
      } finally {
        if (load === loads) store.isLoading = false;
      }
    },

    async loadMore(store) {
      if (store.isLoading || !store.hasMore) return;
      // The list held is a prefix of the server's (new ones arrive at its head, deleted or read-and-gone ones
      // leave it), so the page that follows it is the one its length ends in: overlap is skipped by id.
      const { perPage } = wiring.need();
      const unreadFeed = store.filter === 'unread';
      const held = store.items.filter((item) => !item.local && (!unreadFeed || item.readAt === null)).length;
      await store.loadNotifications(Math.floor(held / perPage) + 1, true);
    },

    async refresh(store) {
      // Snoozed and archived lists change at their head and middle alike: they are loaded whole.
      if (!store.loaded || store.filter === 'archived' || store.filter === 'snoozed') {
        await store.loadNotifications(1, false);
        return;
      }
      const { client, perPage } = wiring.need();
      const filter = store.filter;
      try {
        const result = await client.list(1, perPage, filter);
        if (filter !== store.filter) return;
        const fresh = notificationsOf(result);
        // Only ones newer than the newest held are new: older unseen ones have moved up from page 2 after a
        // read or a delete, and belong to loadMore. Oldest first, so each lands on top in the server's order.
        const newest = store.items.find((item) => !item.local)?.createdAt ?? '';
        for (const notification of fresh.reverse()) {
          const held = store.items.find((item) => item.id === notification.id);
          if (held) {
            if (held.readAt === null && notification.readAt !== null) held.readAt = notification.readAt;
          } else if (notification.createdAt >= newest) {
            store.addNotification(notification);
          }
        }
        // After the additions, which counted themselves: the server's own count is the truth.
        if (result.unreadCount !== undefined) store.serverUnread = result.unreadCount;
        if (store.error === loadFailure) store.error = null;
        void store.loadCounts();
      } catch (error) {
        store.error = wiring.describe(error);
        loadFailure = store.error;
      }
    },

    async setFilter(store, filter) {
      if (filter === store.filter) return;
      store.filter = filter;
      store.hasMore = false;
      store.currentPage = 0;
      // Loaded again below: until it answers, the old tab's items would show under the new tab's name.
      store.items = localKept(store, filter);
      await store.loadNotifications(1, false);
    },
  };
}
