import { describe, expect, it } from 'vitest';
import type { BellStore } from './bell-store.js';
import { type NotificationClient, type NotificationPage, UNREACHABLE } from './client.js';
import { BellError } from './errors.js';
import { LIVE_EVENTS } from './events.js';
import { type BellNotification, normalizeNotification } from './notification.js';
import { DEFAULT_LABELS } from './options.js';
import { createBellStore } from './store.js';
import { bellLabels } from './strings.js';

function record(id: string, minutesAgo: number, read = false) {
  const at = new Date(Date.UTC(2025, 0, 1, 12, 0) - minutesAgo * 60_000).toISOString();
  return {
    id,
    type: 'Test',
    data: { title: `Title ${id}`, message: `Message ${id}` },
    read_at: read ? at : null,
    created_at: at,
  };
}

/** A JSON API double over an array of records, newest first, unread feed. */
function fakeClient(records: ReturnType<typeof record>[]) {
  const calls: string[] = [];
  const unread = () => records.filter((r) => r.read_at === null);
  const client: NotificationClient = {
    async list(page, limit): Promise<NotificationPage> {
      calls.push(`list ${page}`);
      const all = unread();
      return {
        records: all.slice((page - 1) * limit, page * limit),
        hasNextPage: page * limit < all.length,
        unreadCount: all.length,
      };
    },
    async markRead(id) {
      calls.push(`read ${id}`);
      const found = records.find((r) => r.id === id);
      if (found) found.read_at = new Date().toISOString();
      return { unreadCount: unread().length };
    },
    async markAllRead() {
      calls.push('read all');
      for (const r of records) r.read_at ??= new Date().toISOString();
      return { unreadCount: 0 };
    },
    async remove(id) {
      calls.push(`delete ${id}`);
      records.splice(
        records.findIndex((r) => r.id === id),
        1,
      );
      return { unreadCount: unread().length };
    },
    async counts() {
      calls.push('counts');
      return { inbox: records.length, unread: unread().length, archived: 0, snoozed: 0, unseen: 0 };
    },
    async markSeen(ids) {
      calls.push(`seen ${ids.join(',')}`);
      return { unreadCount: unread().length };
    },
    async archive(id) {
      calls.push(`archive ${id}`);
      records.splice(
        records.findIndex((r) => r.id === id),
        1,
      );
      return { unreadCount: unread().length };
    },
    async unarchive(id) {
      calls.push(`unarchive ${id}`);
      return { unreadCount: unread().length };
    },
    async archiveAllRead() {
      calls.push('archive read');
      return { unreadCount: unread().length };
    },
    async snooze(id) {
      calls.push(`snooze ${id}`);
      return { unreadCount: unread().length };
    },
  };
  return { client, calls };
}

function storeWith(
  records: ReturnType<typeof record>[],
  perPage = 2,
  extra: { counts?: boolean; shared?: Array<[string, unknown]> } = {},
) {
  const events: Array<[string, unknown]> = [];
  const { client, calls } = fakeClient(records);
  const store: BellStore = createBellStore();
  store.configure({
    client,
    perPage,
    filter: 'unread',
    labels: DEFAULT_LABELS,
    emit: (name, detail) => events.push([name, detail]),
    highlightMs: 1,
    counts: extra.counts ?? false,
    share: (event, payload) => extra.shared?.push([event, payload]),
  });
  return { store, events, calls };
}

describe('the notifications store', () => {
  it('loads the first page, then the next ones, without repeating an item', async () => {
    const records = [record('a', 1), record('b', 2), record('c', 3), record('d', 4), record('e', 5)];
    const { store } = storeWith(records);
    await store.loadNotifications();
    expect(store.items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(store).toMatchObject({ unreadCount: 5, hasMore: true, currentPage: 1, loaded: true });
    await store.loadMore();
    await store.loadMore();
    expect(store.items.map((item) => item.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(store.hasMore).toBe(false);
  });

  it('keeps loading the right page after items were read away from the unread feed', async () => {
    const records = [record('a', 1), record('b', 2), record('c', 3), record('d', 4), record('e', 5)];
    const { store } = storeWith(records);
    await store.loadNotifications();
    await store.markAsRead('a');
    await store.loadMore(); // one unread held: page 1 again, b skipped as held
    expect(store.items.map((item) => item.id)).toEqual(['a', 'b', 'c']);
    await store.loadMore();
    expect(store.items.map((item) => item.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(store.hasMore).toBe(false);
  });

  it('marks one read, all read, and deletes, telling the window each time', async () => {
    const { store, events, calls } = storeWith([record('a', 1), record('b', 2), record('c', 3)], 10);
    await store.loadNotifications();
    await store.markAsRead('a');
    await store.markAsRead('a');
    expect(store.unreadCount).toBe(2);
    await store.deleteNotification('b');
    await store.markAllAsRead();
    expect(store.items.every((item) => item.readAt !== null)).toBe(true);
    expect(store.unreadCount).toBe(0);
    expect(calls).toEqual(['list 1', 'read a', 'delete b', 'read all']);
    expect(events).toEqual([
      ['notification:marked-read', { notificationId: 'a' }],
      ['notification:deleted', { notificationId: 'b' }],
      ['notification:all-marked-read', { unreadCount: 0 }],
    ]);
  });

  it('adds a live notification once, on top, counted, announced and dispatched', async () => {
    const { store, events } = storeWith([record('a', 5)], 10);
    await store.loadNotifications();
    const live = record('n', 0);
    store.applyLiveEvent(LIVE_EVENTS.created, live);
    store.applyLiveEvent(LIVE_EVENTS.created, live);
    expect(store.items.map((item) => item.id)).toEqual(['n', 'a']);
    expect(store.unreadCount).toBe(2);
    expect(store.announcement).toBe('New notification: Title n');
    expect(events).toEqual([
      ['notification:received', expect.objectContaining({ id: 'n', title: 'Title n' })],
    ]);
  });

  it('follows changes made in other tabs, and does not repeat its own', async () => {
    const { store, events } = storeWith([record('a', 1), record('b', 2)], 10);
    await store.loadNotifications();
    await store.markAsRead('a');
    store.applyLiveEvent(LIVE_EVENTS.markedRead, { notification_id: 'a', unread_count: 1 });
    store.applyLiveEvent(LIVE_EVENTS.deleted, { notification_id: 'b', unread_count: 0 });
    expect(store.items.map((item) => item.id)).toEqual(['a']);
    expect(store.unreadCount).toBe(0);
    expect(events.map(([name]) => name)).toEqual(['notification:marked-read', 'notification:deleted']);
  });

  it('picks up on refresh only what is newer than the list it holds', async () => {
    const records = [record('b', 2), record('c', 3), record('d', 4)];
    const { store, events } = storeWith(records);
    await store.loadNotifications();
    records.unshift(record('a', 1));
    await store.deleteNotification('c'); // 'd' moves up to page 1 but is older: it belongs to loadMore
    await store.refresh();
    expect(store.items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(events.filter(([name]) => name === 'notification:received')).toHaveLength(1);
  });

  it('shows a failed write as an error and leaves the item as it was', async () => {
    const { store } = storeWith([record('a', 1)]);
    await store.loadNotifications();
    (store as unknown as { configure: BellStore['configure'] }).configure({
      client: {
        ...fakeClient([]).client,
        markRead: async () => {
          throw new BellError('forbidden', 'Could not mark it as read: send the CSRF token.', {
            status: 403,
          });
        },
      },
      perPage: 2,
      filter: 'unread',
      labels: DEFAULT_LABELS,
      emit: () => {},
    });
    await store.markAsRead('a');
    expect(store.error).toBe('Could not mark it as read: send the CSRF token.');
    expect(store.items[0]?.readAt).toBeNull();
    store.dismissError();
    expect(store.error).toBeNull();
  });

  it('keeps items made in the page local: read and delete never reach the server', async () => {
    const { store, calls } = storeWith([], 10);
    await store.loadNotifications();
    const local = {
      ...(normalizeNotification(record('x', 0)) as BellNotification),
      id: 'local-1',
      local: true,
    };
    store.addNotification(local);
    await store.markAsRead('local-1');
    await store.deleteNotification('local-1');
    expect(calls).toEqual(['list 1']);
    expect(store.items).toEqual([]);
  });

  it('counts a notification made in the page beside the server’s unread, across polls', async () => {
    const records = [record('a', 5)];
    const { store } = storeWith(records, 10);
    await store.loadNotifications();
    store.addNotification({
      ...(normalizeNotification(record('x', 0)) as BellNotification),
      id: 'local-1',
      local: true,
    });
    expect(store.unreadCount).toBe(2);
    await store.refresh(); // the server still counts one: its one, beside the page's own
    expect(store.items.filter((item) => item.readAt === null)).toHaveLength(2);
    expect(store.unreadCount).toBe(2);
    records.unshift(record('b', 1));
    await store.refresh();
    expect(store.unreadCount).toBe(3);
    await store.markAsRead('local-1');
    await store.refresh();
    expect(store.unreadCount).toBe(2);
  });

  it('counts the unread held plus the server’s unread beyond the page held', async () => {
    const records = [record('a', 1), record('b', 2), record('c', 3), record('d', 4), record('e', 5)];
    const { store } = storeWith(records, 2);
    await store.loadNotifications();
    expect(store.unreadCount).toBe(5); // two held, three beyond the page
    store.applyLiveEvent(LIVE_EVENTS.created, record('n', 0));
    expect(store.unreadCount).toBe(6);
    store.applyLiveEvent(LIVE_EVENTS.markedRead, { notification_id: 'a' });
    expect(store.unreadCount).toBe(5);
    store.unreadCount = 0; // a stale count from the server can never hide the unread items held
    expect(store.unreadCount).toBe(store.items.filter((item) => item.readAt === null).length);
  });

  it('switches between the All and Unread tabs, loading each from its own feed', async () => {
    const lists: Array<string | undefined> = [];
    const store = createBellStore();
    store.configure({
      client: {
        ...fakeClient([]).client,
        async list(_page, _limit, filter) {
          lists.push(filter);
          const all = [record('a', 1), record('r', 2, true)];
          const shown = filter === 'unread' ? all.filter((r) => r.read_at === null) : all;
          return { records: shown, hasNextPage: false, unreadCount: 1 };
        },
      },
      perPage: 10,
      labels: DEFAULT_LABELS,
      emit: () => {},
    });
    await store.loadNotifications();
    expect(store.items.map((item) => item.id)).toEqual(['a', 'r']);
    await store.setFilter('unread');
    expect(store.items.map((item) => item.id)).toEqual(['a']);
    await store.setFilter('all');
    expect(lists).toEqual(['all', 'unread', 'all']);
    expect(store).toMatchObject({ filter: 'all', unreadCount: 1 });
  });

  it('says what failed in the bell’s language, with the server’s own words as the reason', async () => {
    const store = createBellStore();
    const failing = (detail: string) => async () => {
      throw new BellError('request_failed', `Could not …: ${detail}.`, { operation: 'markAllRead', detail });
    };
    store.configure({
      client: { ...fakeClient([]).client, markAllRead: failing('quota exceeded') },
      perPage: 10,
      labels: bellLabels('de'),
      emit: () => {},
    });
    await store.markAllAsRead();
    expect(store.error).toBe('Konnten nicht alle als gelesen markiert werden: quota exceeded.');
    store.configure({
      client: { ...fakeClient([]).client, markAllRead: failing(UNREACHABLE) },
      perPage: 10,
      labels: bellLabels('fr'),
      emit: () => {},
    });
    await store.markAllAsRead();
    expect(store.error).toBe('Impossible de tout marquer comme lu : le serveur est injoignable.');
  });

  it('archives and snoozes one out of the tab, telling the other tabs and loading the counts', async () => {
    const shared: Array<[string, unknown]> = [];
    const { store, calls } = storeWith([record('a', 1), record('b', 2), record('c', 3)], 10, {
      counts: true,
      shared,
    });
    await store.loadNotifications();
    await store.archive('a');
    await store.snooze('b', new Date(Date.now() + 3_600_000));
    expect(store.items.map((item) => item.id)).toEqual(['c']);
    expect(calls.filter((call) => call !== 'counts')).toEqual(['list 1', 'archive a', 'snooze b']);
    expect(calls.filter((call) => call === 'counts').length).toBeGreaterThanOrEqual(3);
    expect(shared.map(([event, payload]) => [event, (payload as { change: string }).change])).toEqual([
      [LIVE_EVENTS.inboxChanged, 'archived'],
      [LIVE_EVENTS.inboxChanged, 'snoozed'],
    ]);
    expect(store.counts).toMatchObject({ inbox: 2 });
  });

  it('marks items seen in one request for those seen close together, once each', async () => {
    const { store, calls } = storeWith([record('a', 1), record('b', 2)], 10);
    await store.loadNotifications();
    store.queueSeen('a');
    store.queueSeen('b');
    store.queueSeen('a');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(calls).toEqual(['list 1', 'seen a,b']);
    expect(store.items.every((item) => item.seenAt !== null)).toBe(true);
    store.queueSeen('a');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(calls).toEqual(['list 1', 'seen a,b']);
  });

  it('folds a pushed notification into the unread one with its collapse key, counting it', async () => {
    const { store } = storeWith([], 10);
    await store.loadNotifications();
    // As the broadcast channel publishes it: the record, with its collapse key.
    const comment = (id: string, actor: string) => ({
      id,
      data: { title: `${actor} commented`, message: 'on the post', actor },
      collapse_key: 'post-1',
      created_at: new Date().toISOString(),
    });
    store.applyLiveEvent(LIVE_EVENTS.created, comment('1', 'Ada'));
    store.applyLiveEvent(LIVE_EVENTS.created, comment('2', 'Bo'));
    expect(store.items).toHaveLength(1);
    expect(store.items[0]).toMatchObject({ id: '2', collapseCount: 2, collapseActors: ['Bo', 'Ada'] });
    expect(store.unreadCount).toBe(1);
    expect(bellLabels('en').collapsed(2, 'Bo')).toBe('Bo and 1 other');
    expect(bellLabels('en').collapsed(10, undefined)).toBe('10 notifications');
  });
});
