import type { BellStore } from '../bell-store.js';
import type { NotificationClient, WriteResult } from '../client.js';
import { BELL_EVENTS, LIVE_EVENTS } from '../events.js';
import type { BellNotification } from '../notification.js';
import type { StoreWiring } from './wiring.js';

// Each action takes the store as `this` gave it: under `Alpine.store` that is Alpine's reactive proxy, so every
// change is seen.

/** Makes a write on the server; a failure becomes the store's error, and the answer `undefined`. */
export async function written(
  store: BellStore,
  wiring: StoreWiring,
  write: (client: NotificationClient) => Promise<WriteResult>,
): Promise<WriteResult | undefined> {
  try {
    return await write(wiring.need().client);
  } catch (error) {
    store.error = wiring.describe(error);
    return undefined;
  }
}

/** The notification with the unread one it replaces folded in (same collapse key): its count and actors. */
function folded(store: BellStore, notification: BellNotification): BellNotification {
  const key = notification.collapseKey;
  if (key === null) return notification;
  const index = store.items.findIndex((item) => item.collapseKey === key && item.readAt === null);
  if (index === -1) return notification;
  const [replaced] = store.items.splice(index, 1) as [BellNotification];
  // The server counts the one replaced no more: the new one takes its place.
  if (!replaced.local) store.serverUnread = Math.max(0, store.serverUnread - 1);
  return {
    ...notification,
    collapseCount: Math.max(notification.collapseCount, replaced.collapseCount + 1),
    collapseActors: [...new Set([...notification.collapseActors, ...replaced.collapseActors])].slice(0, 10),
  };
}

/**
 * Puts a notification at the head of the list, highlighted, in place of the unread one with its collapse key;
 * false when it is held already. On the snoozed or archived tab it is counted, not listed.
 */
export function addNotification(
  store: BellStore,
  wiring: StoreWiring,
  notification: BellNotification,
): boolean {
  if (store.items.some((item) => item.id === notification.id)) return false;
  const listed = store.filter === 'all' || store.filter === 'unread' || notification.local;
  const held = store.items.length;
  const shown = listed ? folded(store, notification) : notification;
  if (listed) store.items.unshift({ ...shown, isNew: true });
  // One more unread on the server too (a local one is counted as held, never by the server).
  if (notification.readAt === null && !notification.local) {
    store.serverUnread += 1;
    const replaced = store.items.length === held;
    if (store.counts && !replaced) {
      store.counts = { ...store.counts, inbox: store.counts.inbox + 1, unread: store.counts.unread + 1 };
    }
  }
  store.announcement = wiring.labels().received(notification.title);
  const id = notification.id;
  setTimeout(() => {
    const item = store.items.find((candidate) => candidate.id === id);
    if (item) item.isNew = false;
  }, wiring.highlightMs());
  wiring.emit(BELL_EVENTS.received, notification);
  return true;
}

/** Marks one notification read, on the server first unless it was made in the page. */
export async function markAsRead(store: BellStore, wiring: StoreWiring, id: string): Promise<void> {
  const item = store.items.find((candidate) => candidate.id === id);
  if (!item || item.readAt !== null) return;
  let unread: number | undefined;
  if (!item.local) {
    const result = await written(store, wiring, (client) => client.markRead(id));
    if (result === undefined) return;
    unread = result.unreadCount;
  }
  if (item.readAt !== null) return; // a live event marked it meanwhile, and said so
  item.readAt = new Date().toISOString();
  if (!item.local) {
    store.serverUnread = unread ?? Math.max(0, store.serverUnread - 1);
    wiring.share(LIVE_EVENTS.markedRead, { notification_id: id, unread_count: store.serverUnread });
    void store.loadCounts();
  }
  wiring.emit(BELL_EVENTS.markedRead, { notificationId: id });
}

/** Marks every notification read on the server, then every one held. */
export async function markAllAsRead(store: BellStore, wiring: StoreWiring): Promise<void> {
  const result = await written(store, wiring, (client) => client.markAllRead());
  if (result === undefined) return;
  const unread = result.unreadCount;
  const readAt = new Date().toISOString();
  const unreadItems = store.items.filter((item) => item.readAt === null);
  for (const item of unreadItems) item.readAt = readAt;
  store.serverUnread = unread ?? 0;
  wiring.share(LIVE_EVENTS.allMarkedRead, { unread_count: store.serverUnread });
  void store.loadCounts();
  // Once: the server's own live event may have got here first, and said so already.
  if (unreadItems.length > 0 || store.items.length === 0) {
    wiring.emit(BELL_EVENTS.allMarkedRead, { unreadCount: store.unreadCount });
  }
}

/** Deletes one notification, on the server first unless it was made in the page. */
export async function deleteNotification(store: BellStore, wiring: StoreWiring, id: string): Promise<void> {
  const item = store.items.find((candidate) => candidate.id === id);
  if (!item) return;
  let unread: number | undefined;
  if (!item.local) {
    const result = await written(store, wiring, (client) => client.remove(id));
    if (result === undefined) return;
    unread = result.unreadCount;
  }
  const index = store.items.findIndex((candidate) => candidate.id === id);
  if (index === -1) return; // a live event removed it meanwhile, and said so
  store.items.splice(index, 1);
  if (!item.local) {
    store.serverUnread = unread ?? Math.max(0, store.serverUnread - (item.readAt === null ? 1 : 0));
    wiring.share(LIVE_EVENTS.deleted, { notification_id: id, unread_count: store.serverUnread });
    void store.loadCounts();
  }
  wiring.emit(BELL_EVENTS.deleted, { notificationId: id });
}
