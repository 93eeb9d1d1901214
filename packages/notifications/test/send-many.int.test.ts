import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseChannel,
  createNotifier,
  type Notifiable,
  type Notification,
  type NotificationStore,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

const COUNT = 10_000;

class Announcement implements Notification {
  via() {
    return ['database'];
  }
  toDatabase(notifiable: Notifiable) {
    return { title: 'Maintenance tonight', message: `Hello user ${notifiable.id}`, icon: 'info' as const };
  }
}

describe.each(STORES)('sending to 10,000 notifiables on $driver', ({ open }) => {
  let opened: TestStore;
  beforeAll(async () => {
    opened = await open({ batchSize: 1000 });
  });
  afterAll(() => opened.dispose());

  it('stores every record in batched writes and one user’s list is right', async () => {
    const inserts: number[] = [];
    const store = opened.store;
    const counting: NotificationStore = {
      ...store,
      insertMany: (records) => {
        inserts.push(records.length);
        return store.insertMany(records);
      },
    };
    const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store: counting }) } });
    const users = Array.from({ length: COUNT }, (_, i) => ({ type: 'User', id: i }));
    const report = await notifier.send(users, new Announcement());

    expect(report.ok).toBe(true);
    expect(report.delivered).toEqual({ database: COUNT });
    expect(new Set(report.ids).size).toBe(COUNT);
    expect(inserts).toEqual([COUNT]);
    expect(await store.count({ type: 'Announcement' })).toBe(COUNT);

    const one = await store.list({ type: 'User', id: '4242' }, { page: 1, limit: 20 });
    expect(one.total).toBe(1);
    expect(one.unreadCount).toBe(1);
    expect(one.records[0]).toMatchObject({
      id: report.ids[4242],
      notifiable_id: '4242',
      data: { message: 'Hello user 4242' },
    });
  });
});
