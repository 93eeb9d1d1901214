import { randomUUID } from 'node:crypto';
import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAwayDelivery,
  createDatabaseChannel,
  createNotificationApi,
  createNotificationClient,
  createNotifier,
  createSendApi,
  type Delivery,
  type InboxCounts,
  isNotificationError,
  type NewNotificationRecord,
  type NotificationChange,
  type NotificationRecord,
  type NotificationUser,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

// Inbox states through the JSON API over a real store (PGlite and PostgreSQL): seen apart from read, archive,
// snooze, collapse keys, expiry and the counts per tab. Each test seeds its own user, so the tests share one store.

const csrfOf = (user: NotificationUser) => `csrf-${user.id}`;
const T0 = Date.now() - 60 * 60 * 1000;

type Json = {
  data: NotificationRecord[] & NotificationRecord & InboxCounts & Record<string, unknown>;
  pagination: Record<string, unknown>;
  meta: Record<string, unknown>;
  error: { code: string; message: string; issues?: unknown[] };
};

function row(user: string, index: number, extra: Partial<NewNotificationRecord> = {}): NewNotificationRecord {
  return {
    id: randomUUID(),
    type: 'CommentAdded',
    notifiable_type: 'User',
    notifiable_id: user,
    data: { title: `${user} #${index}`, message: `message ${index}` },
    created_at: new Date(T0 + index * 60_000),
    ...extra,
  };
}

describe.each(STORES)('inbox states on $driver', ({ open }) => {
  let opened: TestStore;
  let app: ReturnType<typeof createNotificationApi>;
  const changes: Array<[string, NotificationChange]> = [];

  beforeAll(async () => {
    opened = await open();
    app = createNotificationApi({
      store: opened.store,
      authenticate: (c) => {
        const id = c.req.header('x-test-user');
        return id ? { id } : undefined;
      },
      csrfToken: (_c, user) => csrfOf(user),
      onChange: (owner, change) => {
        changes.push([owner.id, change]);
      },
    });
  });
  afterAll(() => opened.dispose());

  const call = async (method: string, path: string, user: string, body?: unknown, csrf?: string | null) => {
    const headers: Record<string, string> = { 'x-test-user': user };
    const token = csrf === undefined ? csrfOf({ id: user }) : csrf;
    if (token !== null && method !== 'GET') headers['x-csrf-token'] = token;
    const response = await app.request(`/notification/notifications${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const titles = async (user: string, tab: string) =>
    (await call('GET', `.json?tab=${tab}`, user)).json.data.map((record) => record.data.title);
  const counts = async (user: string) => (await call('GET', '/counts.json', user)).json.data;

  it('marks seen in a batch without reading, and says so to other tabs once', async () => {
    const user = `seen-${randomUUID()}`;
    const rows = [row(user, 0), row(user, 1), row(user, 2)];
    await opened.store.insertMany(rows);
    expect((await counts(user)).unseen).toBe(3);

    const ids = [rows[0]?.id, rows[1]?.id, rows[1]?.id];
    const first = await call('PATCH', '/seen.json', user, { ids });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({ seen_count: 2 });
    expect(first.json.meta.unread_count).toBe(3);
    const again = await call('PATCH', '/seen.json', user, { ids });
    expect(again.json.data).toEqual({ seen_count: 0 });

    const list = (await call('GET', '.json', user)).json.data;
    const seen = list.filter((record) => record.seen_at !== null).map((record) => record.id);
    expect(seen.sort()).toEqual([rows[0]?.id, rows[1]?.id].sort());
    expect(list.every((record) => record.read_at === null)).toBe(true);
    expect(await counts(user)).toMatchObject({ unseen: 1, unread: 3 });
    const told = changes.filter(([owner]) => owner === user);
    expect(told).toHaveLength(1);
    expect(told[0]?.[1]).toMatchObject({ event: 'notification.inbox-changed', data: { change: 'seen' } });
  });

  it('refuses a seen batch that is empty, too long, or not JSON', async () => {
    const user = `seen-bad-${randomUUID()}`;
    const empty = await call('PATCH', '/seen.json', user, { ids: [] });
    expect(empty.status).toBe(422);
    expect(empty.json.error.code).toBe('validation_failed');
    expect(empty.json.error.message).toMatch(/^ids:/);
    const long = await call('PATCH', '/seen.json', user, { ids: Array.from({ length: 101 }, randomUUID) });
    expect(long.status).toBe(422);
    const broken = await call('PATCH', '/seen.json', user, '{"ids": [');
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe('bad_request');
  });

  it('archives and unarchives one, moving it between the inbox and the archive', async () => {
    const user = `archive-${randomUUID()}`;
    const rows = [row(user, 0), row(user, 1)];
    await opened.store.insertMany(rows);
    const id = rows[0]?.id as string;

    const archived = await call('PATCH', `/${id}/archive.json`, user);
    expect(archived.status).toBe(200);
    expect(archived.json.data.archived_at).not.toBeNull();
    expect(archived.json.meta).toEqual({ unread_count: 1, changed: true });
    expect(await titles(user, 'inbox')).toEqual([`${user} #1`]);
    expect(await titles(user, 'archived')).toEqual([`${user} #0`]);
    expect(await counts(user)).toEqual({ inbox: 1, unread: 1, archived: 1, snoozed: 0, unseen: 1 });

    const twice = await call('PATCH', `/${id}/archive.json`, user);
    expect(twice.json.meta.changed).toBe(false);

    const back = await call('PATCH', `/${id}/unarchive.json`, user);
    expect(back.json.data.archived_at).toBeNull();
    expect(await titles(user, 'inbox')).toEqual([`${user} #1`, `${user} #0`]);
    expect(await counts(user)).toMatchObject({ inbox: 2, archived: 0, unread: 2 });
  });

  it('archives every read one in the inbox, leaving the unread', async () => {
    const user = `archive-read-${randomUUID()}`;
    const readAt = new Date(T0);
    await opened.store.insertMany([
      row(user, 0, { read_at: readAt }),
      row(user, 1, { read_at: readAt }),
      row(user, 2),
    ]);
    const answer = await call('PATCH', '/archive-read.json', user);
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual({ archived_count: 2 });
    expect(await titles(user, 'inbox')).toEqual([`${user} #2`]);
    expect(await counts(user)).toEqual({ inbox: 1, unread: 1, archived: 2, snoozed: 0, unseen: 1 });
  });

  it('snoozes one out of the inbox until its time, then brings it back unread', async () => {
    const user = `snooze-${randomUUID()}`;
    const rows = [row(user, 0, { read_at: new Date(T0) }), row(user, 1)];
    await opened.store.insertMany(rows);
    const id = rows[0]?.id as string;
    const until_ = new Date(Date.now() + 1500).toISOString();

    const snoozed = await call('PATCH', `/${id}/snooze.json`, user, { until: until_ });
    expect(snoozed.status).toBe(200);
    expect(snoozed.json.data).toMatchObject({ snoozed_until: until_, read_at: null });
    expect(await titles(user, 'snoozed')).toEqual([`${user} #0`]);
    expect(await titles(user, 'inbox')).toEqual([`${user} #1`]);
    expect(await counts(user)).toMatchObject({ inbox: 1, snoozed: 1, unread: 1 });

    await until(async () => (await titles(user, 'inbox')).length === 2);
    expect(await titles(user, 'unread')).toEqual([`${user} #1`, `${user} #0`]);
    expect(await counts(user)).toMatchObject({ inbox: 2, snoozed: 0, unread: 2 });
  });

  it('refuses a snooze in the past, too far ahead, or without a time', async () => {
    const user = `snooze-bad-${randomUUID()}`;
    const rows = [row(user, 0)];
    await opened.store.insertMany(rows);
    const path = `/${rows[0]?.id}/snooze.json`;
    const past = await call('PATCH', path, user, { until: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    expect(past.json.error.message).toBe('until: must be in the future');
    const far = await call('PATCH', path, user, {
      until: new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString(),
    });
    expect(far.status).toBe(422);
    expect(far.json.error.message).toBe('until: must be at most 30 days ahead');
    const missing = await call('PATCH', path, user, {});
    expect(missing.status).toBe(422);
    expect(missing.json.error.message).toMatch(/^until:/);
    expect(await counts(user)).toMatchObject({ inbox: 1, snoozed: 0 });
  });

  it('folds a new notification into the unread one with the same collapse key, counting actors', async () => {
    const user = `collapse-${randomUUID()}`;
    const comment = (index: number, actor: string) =>
      row(user, index, {
        collapse_key: 'post-7-comments',
        data: { title: `${actor} commented`, message: `comment ${index}`, actor },
      });
    for (const [index, actor] of ['Ada', 'Bo', 'Ada', 'Cy'].entries()) {
      await opened.store.insertMany([comment(index, actor)]);
    }
    await opened.store.insertMany([row(user, 10)]);
    const list = (await call('GET', '.json', user)).json.data;
    expect(list).toHaveLength(2);
    const folded = list.find((record) => record.collapse_key === 'post-7-comments');
    expect(folded).toMatchObject({ collapse_count: 4, collapse_actors: ['Cy', 'Ada', 'Bo'] });
    expect(folded?.data.title).toBe('Cy commented');

    // Once read, the next one with the key starts afresh.
    await call('PATCH', `/${folded?.id}/read.json`, user);
    await opened.store.insertMany([comment(11, 'Dee')]);
    const after = (await call('GET', '.json', user)).json.data.filter((r) => r.collapse_key !== null);
    expect(after.map((record) => record.collapse_count)).toEqual([1, 4]);
    expect(await counts(user)).toMatchObject({ inbox: 3, unread: 2 });
  });

  it('never lists, counts or finds an expired notification', async () => {
    const user = `expiry-${randomUUID()}`;
    const gone = row(user, 0, { expires_at: new Date(Date.now() - 1000) });
    const soon = row(user, 1, { expires_at: new Date(Date.now() + 1500) });
    await opened.store.insertMany([gone, soon, row(user, 2)]);
    expect(await titles(user, 'inbox')).toEqual([`${user} #2`, `${user} #1`]);
    expect((await call('GET', `/${gone.id}.json`, user)).status).toBe(404);
    expect((await call('PATCH', `/${gone.id}/archive.json`, user)).status).toBe(404);

    await until(async () => (await titles(user, 'inbox')).length === 1);
    expect(await counts(user)).toEqual({ inbox: 1, unread: 1, archived: 0, snoozed: 0, unseen: 1 });
    expect((await call('GET', '/unread.json', user)).json.meta.unread_count).toBe(1);
  });

  it('keeps every user to their own notifications', async () => {
    const owner = `owner-${randomUUID()}`;
    const intruder = `intruder-${randomUUID()}`;
    const rows = [row(owner, 0, { read_at: new Date(T0) }), row(owner, 1)];
    await opened.store.insertMany([...rows, row(intruder, 0, { read_at: new Date(T0) })]);
    const [first, second] = rows.map((r) => r.id);
    const future = new Date(Date.now() + 60_000).toISOString();
    for (const path of [`/${first}/archive.json`, `/${first}/unarchive.json`]) {
      expect((await call('PATCH', path, intruder)).status).toBe(404);
    }
    const snooze = await call('PATCH', `/${second}/snooze.json`, intruder, { until: future });
    expect(snooze.status).toBe(404);
    expect(snooze.json.error.code).toBe('notification_not_found');
    const seen = await call('PATCH', '/seen.json', intruder, { ids: [first, second] });
    expect(seen.json.data).toEqual({ seen_count: 0 });
    // The intruder's "archive all read" archives only their own.
    expect((await call('PATCH', '/archive-read.json', intruder)).json.data).toEqual({ archived_count: 1 });
    expect(await counts(owner)).toEqual({ inbox: 2, unread: 1, archived: 0, snoozed: 0, unseen: 2 });
  });

  it.each([
    ['PATCH', '/seen.json'],
    ['PATCH', '/archive-read.json'],
    ['PATCH', `/${randomUUID()}/archive.json`],
    ['PATCH', `/${randomUUID()}/unarchive.json`],
    ['PATCH', `/${randomUUID()}/snooze.json`],
  ])('%s %s answers 403 without the CSRF token', async (method, path) => {
    const { status, json } = await call(method, path, 'csrf-user', { ids: [randomUUID()] }, null);
    expect(status).toBe(403);
    expect(json.error.code).toBe('csrf_token_mismatch');
  });

  it('answers 404 for an id that is not a notification id', async () => {
    const { status, json } = await call('PATCH', '/not-a-uuid/archive.json', 'nobody');
    expect(status).toBe(404);
    expect(json.error.code).toBe('notification_not_found');
  });

  it('does not deliver an expired notification to an away channel', async () => {
    const sent: Delivery[] = [];
    const email = { send: async (delivery: Delivery) => void sent.push(delivery) };
    let clock = new Date();
    const away = createAwayDelivery({ store: opened.store, channels: { email }, now: () => clock });
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
      away,
    });
    const user = { type: 'User', id: `away-${randomUUID()}` };
    const notification = (title: string, expiresAt?: Date) => ({
      type: 'Reminder',
      via: () => ['database'],
      toDatabase: () => ({ title, message: title }),
      awayAfterSeconds: 60,
      expiresAt,
    });
    await notifier.send([user], notification('expires first', new Date(Date.now() + 30_000)));
    await notifier.send([user], notification('lasts'));
    clock = new Date(Date.now() + 61_000);
    await away.runDue();
    expect(sent.map((delivery) => delivery.notification.toDatabase?.(delivery.notifiable))).toEqual([
      { title: 'lasts', message: 'lasts' },
    ]);
  });

  it('takes a collapse key and an expiry through the send API and the typed client', async () => {
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
    });
    const sendApi = createSendApi({ notifier, store: opened.store, secret: 'inbox-secret' });
    const client = createNotificationClient({
      url: 'http://notifications.test',
      secret: 'inbox-secret',
      fetch: async (input, init) => sendApi.request(String(input), init),
    });
    const user = `send-${randomUUID()}`;
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    for (const actor of ['Ada', 'Bo']) {
      const result = await client.send({
        recipients: [user],
        type: 'CommentAdded',
        data: { title: `${actor} commented`, message: 'on your post', actor },
        collapse_key: 'post-1',
        expires_at: expiresAt,
      });
      expect(result.ok).toBe(true);
    }
    const list = (await call('GET', '.json', user)).json.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      collapse_count: 2,
      collapse_actors: ['Bo', 'Ada'],
      expires_at: expiresAt,
    });

    const refused = async (fields: Record<string, unknown>) => {
      const request = { recipients: [user], type: 'T', data: { title: 't', message: 'm' }, ...fields };
      const error = await client.send(request as never).catch((caught: unknown) => caught);
      if (!isNotificationError(error)) throw new Error('the send was not refused');
      expect(error.status).toBe(422);
      return (error.body as { error: { message: string } }).error.message;
    };
    expect(await refused({ expires_at: new Date(Date.now() - 1000).toISOString() })).toBe(
      'expires_at: must be in the future',
    );
    expect(await refused({ expires_at: new Date(Date.now() + 400 * 86_400_000).toISOString() })).toBe(
      'expires_at: must be at most a year ahead',
    );
    expect(await refused({ expires_at: 'tomorrow' })).toMatch(/^expires_at: /);
    expect(await refused({ collapse_key: '' })).toMatch(/^collapse_key: /);
    expect((await call('GET', '.json', user)).json.data).toHaveLength(1);
  });
});
