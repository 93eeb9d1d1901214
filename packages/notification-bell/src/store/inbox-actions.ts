import type { BellStore } from '../bell-store.js';
import type { NotificationClient, WriteResult } from '../client.js';
import { LIVE_EVENTS } from '../events.js';
import { written } from './read-actions.js';
import type { StoreWiring } from './wiring.js';

/** The inbox changes a bell makes to one notification, as `notification.inbox-changed` names them. */
export type InboxChangeName = 'archived' | 'unarchived' | 'snoozed';

/** How long seen items are gathered before one request marks them all. */
const SEEN_BATCH_MS = 400;

/**
 * Archives, unarchives or snoozes one notification: on the server first (a notification made in the page only
 * leaves the list), then out of the tab shown, with the other tabs of the page told.
 */
export async function changeOne(
  store: BellStore,
  wiring: StoreWiring,
  options: {
    id: string;
    change: InboxChangeName;
    write: (client: NotificationClient) => Promise<WriteResult>;
  },
): Promise<void> {
  const { id, change } = options;
  const item = store.items.find((candidate) => candidate.id === id);
  if (!item) return;
  const result = item.local ? { unreadCount: undefined } : await written(store, wiring, options.write);
  if (result === undefined) return;
  // A re-snooze on the snoozed tab keeps it there; every other change moves it to another tab.
  if (!(change === 'snoozed' && store.filter === 'snoozed')) {
    const index = store.items.findIndex((candidate) => candidate.id === id);
    if (index !== -1) store.items.splice(index, 1);
  }
  if (item.local) return;
  if (result.unreadCount !== undefined) store.serverUnread = result.unreadCount;
  wiring.share(LIVE_EVENTS.inboxChanged, {
    change,
    notification_ids: [id],
    unread_count: store.serverUnread,
  });
  await store.loadCounts();
}

/** Archives every read notification in the inbox, and drops them from the list held. */
export async function archiveAllRead(store: BellStore, wiring: StoreWiring): Promise<void> {
  const result = await written(store, wiring, (client) => client.archiveAllRead());
  if (result === undefined) return;
  if (store.filter === 'all') store.items = store.items.filter((item) => item.local || item.readAt === null);
  if (result.unreadCount !== undefined) store.serverUnread = result.unreadCount;
  wiring.share(LIVE_EVENTS.inboxChanged, {
    change: 'archived-all-read',
    notification_ids: [],
    unread_count: store.serverUnread,
  });
  if (store.filter === 'archived') await store.loadNotifications(1, false);
  await store.loadCounts();
}

/** The counts per tab, unless the bell shows no tabs; a failure keeps the last counts. */
export async function loadCounts(store: BellStore, wiring: StoreWiring): Promise<void> {
  const deps = wiring.need();
  if (deps.counts === false) return;
  try {
    store.counts = await deps.client.counts();
  } catch {
    // The counts only decorate the tabs: the list's own load reports a server that fails.
  }
}

/** Gathers the ids of items seen close together and marks them seen in one request. */
export function createSeenBatch(wiring: StoreWiring): {
  add(store: BellStore, id: string): void;
} {
  const pending = new Set<string>();
  let scheduled = false;
  const flush = async (store: BellStore) => {
    scheduled = false;
    const ids = [...pending];
    pending.clear();
    if (ids.length === 0) return;
    try {
      await wiring.need().client.markSeen(ids);
    } catch {
      // Seen is a hint for the counts: items not marked now are marked when shown again.
      return;
    }
    for (const item of store.items) if (ids.includes(item.id)) item.seenAt ??= new Date().toISOString();
    wiring.share(LIVE_EVENTS.inboxChanged, {
      change: 'seen',
      notification_ids: ids,
      unread_count: store.serverUnread,
    });
  };
  return {
    add(store, id) {
      const item = store.items.find((candidate) => candidate.id === id);
      if (!item || item.local || item.seenAt !== null) return;
      pending.add(id);
      if (scheduled) return;
      scheduled = true;
      setTimeout(() => void flush(store), SEEN_BATCH_MS);
    },
  };
}
