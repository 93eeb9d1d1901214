import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  type Notification,
  type NotificationStore,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

const alice = { type: 'User', id: 'alice' };

describe.each(STORES)('the notification store on $driver', ({ open }) => {
  let opened: TestStore;
  let store: NotificationStore;
  beforeAll(async () => {
    opened = await open();
    store = opened.store;
  });
  afterAll(() => opened.dispose());

  it('stores Laravel-shaped records through the database channel and reads them back', async () => {
    const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
    class InvoicePaid implements Notification {
      via() {
        return ['database'];
      }
      toDatabase() {
        return { title: 'Invoice paid', message: 'Invoice #12 was paid', icon: 'check' as const, amount: 12 };
      }
    }
    const report = await notifier.notifiable({ type: 'User', id: 'alice' }).notify(new InvoicePaid());
    expect(report.ok).toBe(true);
    const id = report.ids[0] as string;
    const record = await store.find(alice, id);
    expect(record).toEqual({
      id,
      type: 'InvoicePaid',
      notifiable_type: 'User',
      notifiable_id: 'alice',
      data: { title: 'Invoice paid', message: 'Invoice #12 was paid', icon: 'check', amount: 12 },
      read_at: null,
      seen_at: null,
      archived_at: null,
      snoozed_until: null,
      expires_at: null,
      collapse_key: null,
      collapse_count: 1,
      collapse_actors: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await store.find({ type: 'User', id: 'bob' }, id)).toBeUndefined();
    expect(await store.find({ type: 'Team', id: 'alice' }, id)).toBeUndefined();
  });

  it('refuses bad data with a clear error and stores the good rows of the same send', async () => {
    const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
    const owner = { type: 'User', id: `bad-${randomUUID()}` };
    const notification: Notification = {
      via: () => ['database'],
      toDatabase: (n) => (n.id === 'broken' ? { message: 'no title' } : { title: 'ok', message: 'fine' }),
    };
    const report = await notifier.send([owner, { type: 'User', id: 'broken' }], notification);
    expect(report.delivered).toEqual({ database: 1 });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]?.error.code).toBe('invalid_data');
    expect(report.failures[0]?.error.message).toMatch(/invalid notification data: title: /);
    expect((await store.list(owner, { page: 1, limit: 10 })).total).toBe(1);
    expect((await store.list({ type: 'User', id: 'broken' }, { page: 1, limit: 10 })).total).toBe(0);
  });

  it('keeps its rows and its migration state across a reopen', async () => {
    const before = await store.list(alice, { page: 1, limit: 10 });
    expect(before.total).toBeGreaterThan(0);
    store = await opened.reopen();
    expect(await store.migrate()).toEqual([]);
    expect((await store.list(alice, { page: 1, limit: 10 })).records).toEqual(before.records);
  });
});

describe('the embedded store’s data directory', () => {
  it('is created with its missing parents, as on a fresh checkout', async () => {
    const root = await mkdtemp(join(tmpdir(), 'herald-notifications-fresh-'));
    const dataDir = join(root, 'data', 'notifications');
    try {
      const store = await createNotificationStore({ dataDir });
      await store.close();
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
