import type { BellStore } from '../bell-store.js';
import type { NotificationClient, WriteResult } from '../client.js';
import { BELL_EVENTS } from '../events.js';
import type { BellNotification } from '../notification.js';
import type { StoreWiring } from './wiring.js';

// Each action takes the store as `this` gave it: under `Alpine.store` that is Alpine's reactive proxy, so every
// change is seen.

/** Makes a write on the server; a failure becomes the store's error, and the answer `undefined`. */
async function written(
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

/** Puts a notification at the head of the list, highlighted; false when it is held already. */
export function addNotification(
  store: BellStore,
  wiring: StoreWiring,
  notification: BellNotification,
): boolean {
  if (store.items.some((item) => item.id === notification.id)) return false;
  store.items.unshift({ ...notification, isNew: true });
  // One more unread on the server too (a local one is counted as held, never by the server).
  if (notification.readAt === null && !notification.local) store.serverUnread += 1;
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
  if (!item.local) store.serverUnread = unread ?? Math.max(0, store.serverUnread - 1);
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
  }
  wiring.emit(BELL_EVENTS.deleted, { notificationId: id });
}
