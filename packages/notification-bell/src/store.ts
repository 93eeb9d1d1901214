import type { BellStore } from './bell-store.js';
import { archiveAllRead, changeOne, createSeenBatch, loadCounts } from './store/inbox-actions.js';
import { createListLoading } from './store/list-loading.js';
import { applyLiveEvent } from './store/live-events.js';
import { addNotification, deleteNotification, markAllAsRead, markAsRead } from './store/read-actions.js';
import { createStoreWiring } from './store/wiring.js';

/**
 * Creates the store's state and methods. Methods read and write state through `this`, so that under
 * `Alpine.store` every change goes through Alpine's reactive proxy; each hands `this` to the part that decides
 * (list loading, read actions, live events).
 *
 * @example
 * Alpine.store('notifications', createBellStore());
 */
export function createBellStore(initial: { unreadCount?: number } = {}): BellStore {
  const wiring = createStoreWiring();
  const lists = createListLoading(wiring);
  const seen = createSeenBatch(wiring);

  return {
    items: [],
    serverUnread: initial.unreadCount ?? 0,
    filter: 'all',
    counts: null,
    get unreadCount(): number {
      // The snoozed and archived tabs hold the server's items outside the inbox: they are not its unread.
      const inboxShown = this.filter === 'all' || this.filter === 'unread';
      let held = 0;
      let heldFromServer = 0;
      for (const item of this.items) {
        if (item.readAt !== null || (!item.local && !inboxShown)) continue;
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
      wiring.configure(next);
      if (next.filter) this.filter = next.filter;
    },
    addNotification(notification) {
      return addNotification(this, wiring, notification);
    },
    markAsRead(id) {
      return markAsRead(this, wiring, id);
    },
    markAllAsRead() {
      return markAllAsRead(this, wiring);
    },
    deleteNotification(id) {
      return deleteNotification(this, wiring, id);
    },
    archive(id) {
      return changeOne(this, wiring, { id, change: 'archived', write: (client) => client.archive(id) });
    },
    unarchive(id) {
      return changeOne(this, wiring, { id, change: 'unarchived', write: (client) => client.unarchive(id) });
    },
    archiveAllRead() {
      return archiveAllRead(this, wiring);
    },
    snooze(id, until) {
      return changeOne(this, wiring, { id, change: 'snoozed', write: (client) => client.snooze(id, until) });
    },
    queueSeen(id) {
      seen.add(this, id);
    },
    loadCounts() {
      return loadCounts(this, wiring);
    },
    loadNotifications(page = 1, append = false) {
      return lists.load(this, page, append);
    },
    loadMore() {
      return lists.loadMore(this);
    },
    refresh() {
      return lists.refresh(this);
    },
    setFilter(filter) {
      return lists.setFilter(this, filter);
    },
    applyLiveEvent(event, payload) {
      applyLiveEvent(this, wiring, event, payload);
    },
    toggle() {
      this.setOpen(!this.isOpen);
    },
    setOpen(open) {
      this.isOpen = open;
      if (open && !this.loaded && !this.isLoading && wiring.configured) void this.loadNotifications(1, false);
    },
    dismissError() {
      this.error = null;
    },
  };
}
