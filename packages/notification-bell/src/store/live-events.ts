import type { BellStore } from '../bell-store.js';
import { BELL_EVENTS, LIVE_EVENTS } from '../events.js';
import { normalizeNotification } from '../notification.js';
import type { StoreWiring } from './wiring.js';

function countOf(payload: unknown): number | undefined {
  const count = (payload as { unread_count?: unknown } | null)?.unread_count;
  return typeof count === 'number' ? count : undefined;
}

function idOf(payload: unknown): string | undefined {
  const id = (payload as { notification_id?: unknown } | null)?.notification_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Applies one event pushed on the user's channel: a change made elsewhere (another tab, the server) or a new
 * notification. The event's `unread_count`, when it carries one, is the server's count from then on.
 */
export function applyLiveEvent(store: BellStore, wiring: StoreWiring, event: string, payload: unknown): void {
  const count = countOf(payload);
  switch (event) {
    case LIVE_EVENTS.markedRead: {
      const id = idOf(payload);
      const item = store.items.find((candidate) => candidate.id === id);
      if (item && item.readAt === null) {
        item.readAt = new Date().toISOString();
        if (count === undefined) store.serverUnread = Math.max(0, store.serverUnread - 1);
        wiring.emit(BELL_EVENTS.markedRead, { notificationId: item.id });
      }
      break;
    }
    case LIVE_EVENTS.allMarkedRead: {
      const readAt = new Date().toISOString();
      const unread = store.items.filter((item) => item.readAt === null);
      for (const item of unread) item.readAt = readAt;
      if (count === undefined) store.serverUnread = 0;
      if (unread.length > 0) wiring.emit(BELL_EVENTS.allMarkedRead, { unreadCount: count ?? 0 });
      break;
    }
    case LIVE_EVENTS.deleted: {
      const id = idOf(payload);
      const index = store.items.findIndex((candidate) => candidate.id === id);
      if (index !== -1) {
        const [gone] = store.items.splice(index, 1);
        if (count === undefined && gone?.readAt === null) {
          store.serverUnread = Math.max(0, store.serverUnread - 1);
        }
        wiring.emit(BELL_EVENTS.deleted, { notificationId: id });
      }
      break;
    }
    case LIVE_EVENTS.inboxChanged: {
      const change = payload as { change?: unknown; notification_ids?: unknown } | null;
      const ids = Array.isArray(change?.notification_ids) ? change.notification_ids.map(String) : [];
      if (change?.change === 'seen') {
        const at = new Date().toISOString();
        for (const item of store.items) if (ids.includes(item.id)) item.seenAt ??= at;
        break;
      }
      // Archived, unarchived, snoozed elsewhere: the tab shown and its counts are loaded again.
      void store.loadNotifications(1, false);
      break;
    }
    case LIVE_EVENTS.deletedAll:
      store.items = store.items.filter((item) => item.local);
      store.hasMore = false;
      if (count === undefined) store.serverUnread = 0;
      break;
    default: {
      // Any other event is a new notification (an app may name it with broadcastAs()).
      const notification = normalizeNotification(payload);
      if (notification) store.addNotification(notification);
      return;
    }
  }
  if (count !== undefined) store.serverUnread = count;
  if (event !== LIVE_EVENTS.inboxChanged) void store.loadCounts();
}
