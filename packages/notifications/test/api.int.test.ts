import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNotificationApi,
  type NewNotificationRecord,
  type NotificationChange,
  type NotificationRecord,
  type NotificationUser,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

const USERS: Record<string, NotificationUser> = {
  alice: { id: 'alice' },
  bob: { id: 'bob' },
  carol: { id: 'carol' },
  dave: { id: 'dave' },
};
const csrfOf = (user: NotificationUser) => `csrf-${user.id}`;
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** `count` notifications for one user, oldest first, one minute apart; the first `read` of them read. */
function seed(user: string, count: number, read = 0): NewNotificationRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    type: i % 2 === 0 ? 'InvoicePaid' : 'CommentAdded',
    notifiable_type: 'User',
    notifiable_id: user,
    data: { title: `${user} #${i}`, message: `message ${i}` },
    created_at: new Date(T0 + i * 60_000),
    read_at: i < read ? new Date(T0 + i * 60_000 + 1000) : null,
  }));
}

type Json = {
  data: NotificationRecord[] & NotificationRecord & Record<string, unknown>;
  pagination: Record<string, unknown>;
  meta: Record<string, unknown>;
  error: { code: string; message: string };
};

describe.each(STORES)('the JSON API on $driver', ({ open }) => {
  let opened: TestStore;
  let changes: Array<[string, NotificationChange]>;
  let app: ReturnType<typeof createNotificationApi>;
  const rows = { alice: seed('alice', 25, 5), bob: seed('bob', 3), carol: seed('carol', 6) };

  beforeAll(async () => {
    opened = await open();
    await opened.store.insertMany([...rows.alice, ...rows.bob, ...rows.carol]);
    changes = [];
    app = createNotificationApi({
      store: opened.store,
      authenticate: (c) => USERS[c.req.header('x-test-user') ?? ''],
      csrfToken: (_c, user) => csrfOf(user),
      maxLimit: 50,
      onChange: (owner, change) => {
        changes.push([owner.id, change]);
      },
    });
  });
  afterAll(() => opened.dispose());

  const call = async (
    method: string,
    path: string,
    user?: string,
    init: { csrf?: string | null; body?: string } = {},
  ): Promise<{ status: number; json: Json }> => {
    const headers: Record<string, string> = {};
    if (user) headers['x-test-user'] = user;
    const csrf = init.csrf === undefined && user && USERS[user] ? csrfOf(USERS[user]) : init.csrf;
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
    const response = await app.request(`/notification/notifications${path}`, {
      method,
      headers,
      body: init.body,
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const get = (path: string, user = 'alice') => call('GET', path, user);

  describe('authentication and CSRF', () => {
    const routes: Array<[string, string]> = [
      ['GET', '.json'],
      ['GET', '/unread.json'],
      ['GET', `/${randomUUID()}.json`],
      ['PATCH', `/${randomUUID()}/read.json`],
      ['PATCH', '/mark-all-read.json'],
      ['DELETE', `/${randomUUID()}.json`],
      ['DELETE', '.json'],
    ];

    it.each(routes)('%s %s answers 401 without a signed-in user', async (method, path) => {
      const { status, json } = await call(method, path);
      expect(status).toBe(401);
      expect(json).toEqual({ error: { code: 'unauthenticated', message: 'sign in to see notifications' } });
    });

    it('answers 401 everywhere when the host gives no authenticate hook', async () => {
      const bare = createNotificationApi({ store: opened.store });
      const response = await bare.request('/notification/notifications.json', {
        headers: { 'x-test-user': 'alice' },
      });
      expect(response.status).toBe(401);
    });

    it.each(routes.filter(([method]) => method !== 'GET'))(
      '%s %s answers 403 without the CSRF token, or with another user’s',
      async (method, path) => {
        for (const csrf of [null, 'csrf-bob', '']) {
          const { status, json } = await call(method, path, 'alice', { csrf });
          expect(status).toBe(403);
          expect(json.error.code).toBe('csrf_token_mismatch');
        }
      },
    );

    it('refuses writes when the host gives no CSRF hook', async () => {
      const noCsrf = createNotificationApi({ store: opened.store, authenticate: () => USERS.alice });
      const response = await noCsrf.request('/notification/notifications/mark-all-read.json', {
        method: 'PATCH',
        headers: { 'x-csrf-token': 'anything' },
      });
      expect(response.status).toBe(403);
      expect((await opened.store.unreadCount({ type: 'User', id: 'alice' })) > 0).toBe(true);
    });
  });

  describe('lists and pagination', () => {
    it('lists the first page newest first with the default limit, counts and Laravel-shaped records', async () => {
      const { status, json } = await get('.json');
      expect(status).toBe(200);
      expect(json.pagination).toEqual({
        page: 1,
        limit: 20,
        total: 25,
        total_pages: 2,
        has_next_page: true,
        has_prev_page: false,
      });
      expect(json.meta).toEqual({ unread_count: 20 });
      expect(json.data.map((r) => r.data.title)).toEqual(
        Array.from({ length: 20 }, (_, i) => `alice #${24 - i}`),
      );
      expect(Object.keys(json.data[0] ?? {}).sort()).toEqual(
        [
          'created_at',
          'data',
          'id',
          'notifiable_id',
          'notifiable_type',
          'read_at',
          'seen_at',
          'archived_at',
          'snoozed_until',
          'expires_at',
          'collapse_key',
          'collapse_count',
          'collapse_actors',
          'type',
          'updated_at',
        ].sort(),
      );
      expect(json.data[0]).toMatchObject({ notifiable_type: 'User', notifiable_id: 'alice', read_at: null });
    });

    it('gives the last partial page, and an empty page past the end', async () => {
      const second = await get('.json?page=2');
      expect(second.json.data.map((r) => r.data.title)).toEqual([
        'alice #4',
        'alice #3',
        'alice #2',
        'alice #1',
        'alice #0',
      ]);
      expect(second.json.pagination).toMatchObject({ page: 2, has_next_page: false, has_prev_page: true });
      const past = await get('.json?page=3');
      expect(past.status).toBe(200);
      expect(past.json.data).toEqual([]);
      expect(past.json.pagination).toMatchObject({
        page: 3,
        total: 25,
        total_pages: 2,
        has_next_page: false,
        has_prev_page: true,
      });
    });

    it('lowers a limit above the maximum to it, and an exact fit makes one page', async () => {
      const big = await get('.json?limit=1000');
      expect(big.json.pagination).toMatchObject({ limit: 50, total_pages: 1, has_next_page: false });
      expect(big.json.data).toHaveLength(25);
      const exact = await get('.json?limit=25');
      expect(exact.json.pagination).toMatchObject({ total_pages: 1, has_next_page: false });
      const one = await get('.json?limit=1&page=25');
      expect(one.json.data.map((r) => r.data.title)).toEqual(['alice #0']);
      expect(one.json.pagination).toMatchObject({
        total_pages: 25,
        has_next_page: false,
        has_prev_page: true,
      });
    });

    it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'limit=0', 'limit=x', 'status=archived', 'type='])(
      'answers 422 for %s',
      async (query) => {
        const { status, json } = await get(`.json?${query}`);
        expect(status).toBe(422);
        expect(json.error.code).toBe('validation_failed');
        expect(json.error.message).toMatch(new RegExp(`^${query.split('=')[0]}: `));
      },
    );

    it('filters by status and by type, alone and together', async () => {
      const read = await get('.json?status=read');
      expect(read.json.pagination.total).toBe(5);
      expect(read.json.data.every((r) => r.read_at !== null)).toBe(true);
      expect(read.json.meta.unread_count).toBe(20);
      const unread = await get('.json?status=unread&limit=50');
      expect(unread.json.pagination.total).toBe(20);
      expect(unread.json.data.every((r) => r.read_at === null)).toBe(true);
      const invoices = await get('.json?type=InvoicePaid&limit=50');
      expect(invoices.json.pagination.total).toBe(13);
      expect(new Set(invoices.json.data.map((r) => r.type))).toEqual(new Set(['InvoicePaid']));
      const readComments = await get('.json?type=CommentAdded&status=read');
      expect(readComments.json.data.map((r) => r.data.title)).toEqual(['alice #3', 'alice #1']);
      const none = await get('.json?type=Nothing');
      expect(none.json.pagination).toEqual({
        page: 1,
        limit: 20,
        total: 0,
        total_pages: 0,
        has_next_page: false,
        has_prev_page: false,
      });
    });

    it('unread.json lists only unread ones, whatever status is asked', async () => {
      const { json } = await get('/unread.json?status=read&limit=50');
      expect(json.pagination.total).toBe(20);
      expect(json.data.every((r) => r.read_at === null)).toBe(true);
      const typed = await get('/unread.json?type=CommentAdded');
      expect(typed.json.pagination.total).toBe(10);
    });
  });

  describe('one notification through unread, read and deleted', () => {
    it('shows one notification of the user', async () => {
      const target = rows.alice[7] as NewNotificationRecord;
      const { status, json } = await get(`/${target.id}.json`);
      expect(status).toBe(200);
      expect(json.data).toMatchObject({ id: target.id, data: { title: 'alice #7' }, read_at: null });
    });

    it.each(['not-a-uuid', randomUUID()])('answers 404 for an unknown id (%s)', async (id) => {
      for (const [method, path] of [
        ['GET', `/${id}.json`],
        ['PATCH', `/${id}/read.json`],
        ['DELETE', `/${id}.json`],
      ] as const) {
        const { status, json } = await call(method, path, 'alice');
        expect(status).toBe(404);
        expect(json).toEqual({
          error: { code: 'notification_not_found', message: 'Notification not found' },
        });
      }
    });

    it('goes unread → read → deleted, broadcasting each change once', async () => {
      const id = (rows.carol[5] as NewNotificationRecord).id;
      changes.length = 0;
      const read = await call('PATCH', `/${id}/read.json`, 'carol');
      expect(read.status).toBe(200);
      expect(read.json.data.read_at).toEqual(expect.stringMatching(/^\d{4}-/));
      expect(read.json.meta).toEqual({ unread_count: 5, changed: true });
      const again = await call('PATCH', `/${id}/read.json`, 'carol');
      expect(again.json.data.read_at).toBe(read.json.data.read_at);
      expect(again.json.meta).toEqual({ unread_count: 5, changed: false });
      expect((await get(`/${id}.json`, 'carol')).json.data.read_at).toBe(read.json.data.read_at);

      const deleted = await call('DELETE', `/${id}.json`, 'carol');
      expect(deleted.status).toBe(200);
      expect(deleted.json).toEqual({ data: { id }, meta: { unread_count: 5 } });
      expect((await get(`/${id}.json`, 'carol')).status).toBe(404);
      expect((await call('PATCH', `/${id}/read.json`, 'carol')).status).toBe(404);
      expect((await call('DELETE', `/${id}.json`, 'carol')).status).toBe(404);
      expect(changes).toEqual([
        ['carol', { event: 'notification.marked-read', data: { notification_id: id, unread_count: 5 } }],
        ['carol', { event: 'notification.deleted', data: { notification_id: id, unread_count: 5 } }],
      ]);
    });
  });

  describe('bulk changes', () => {
    it('marks all read by type, then all, and reports the counts', async () => {
      changes.length = 0;
      const byType = await call('PATCH', '/mark-all-read.json', 'carol', {
        body: JSON.stringify({ type: 'InvoicePaid' }),
      });
      expect(byType.json).toEqual({ data: { marked_count: 3 }, meta: { unread_count: 2 } });
      const rest = await call('PATCH', '/mark-all-read.json', 'carol');
      expect(rest.json).toEqual({ data: { marked_count: 2 }, meta: { unread_count: 0 } });
      expect((await get('/unread.json', 'carol')).json.data).toEqual([]);
      expect(changes.map(([, change]) => change.data)).toEqual([
        { marked_count: 3, unread_count: 2 },
        { marked_count: 2, unread_count: 0 },
      ]);
    });

    it('answers 400 for a body that is not JSON and 422 for a body of the wrong shape', async () => {
      const notJson = await call('PATCH', '/mark-all-read.json', 'carol', { body: '{type:' });
      expect(notJson.status).toBe(400);
      expect(notJson.json.error.code).toBe('bad_request');
      for (const body of [{ before: 'yesterday' }, { colour: 'red' }, { type: 7 }]) {
        const wrong = await call('PATCH', '/mark-all-read.json', 'carol', { body: JSON.stringify(body) });
        expect(wrong.status).toBe(422);
        expect(wrong.json.error.code).toBe('validation_failed');
      }
      const badStatus = await call('DELETE', '.json', 'carol', { body: JSON.stringify({ status: 'old' }) });
      expect(badStatus.status).toBe(422);
      expect(badStatus.json.error.message).toMatch(/^status: /);
    });

    it('deletes all matching a filter (before, status), then the rest', async () => {
      const dave = seed('dave', 4, 2);
      await opened.store.insertMany(dave);
      const old = await call('DELETE', '.json', 'dave', {
        body: JSON.stringify({ before: new Date(T0 + 60_000).toISOString() }),
      });
      expect(old.json).toEqual({ data: { deleted_count: 1 }, meta: { unread_count: 2 } });
      const read = await call('DELETE', '.json', 'dave', { body: JSON.stringify({ status: 'read' }) });
      expect(read.json.data).toEqual({ deleted_count: 1 });
      expect((await get('.json', 'dave')).json.data.map((r) => r.data.title)).toEqual(['dave #3', 'dave #2']);
      const all = await call('DELETE', '.json', 'dave');
      expect(all.json).toEqual({ data: { deleted_count: 2 }, meta: { unread_count: 0 } });
      expect((await get('.json', 'dave')).json.pagination.total).toBe(0);
    });
  });

  describe('isolation between users', () => {
    it('never shows, changes or deletes another user’s notifications, answering 404', async () => {
      const alices = (rows.alice[10] as NewNotificationRecord).id;
      expect((await get(`/${alices}.json`, 'bob')).status).toBe(404);
      expect((await call('PATCH', `/${alices}/read.json`, 'bob')).status).toBe(404);
      expect((await call('DELETE', `/${alices}.json`, 'bob')).status).toBe(404);
      const bobsList = await get('.json?limit=50', 'bob');
      expect(bobsList.json.data.map((r) => r.notifiable_id)).toEqual(['bob', 'bob', 'bob']);
      expect((await call('PATCH', '/mark-all-read.json', 'bob')).json.data).toEqual({ marked_count: 3 });
      expect((await call('DELETE', '.json', 'bob')).json.data).toEqual({ deleted_count: 3 });

      const alice = await get(`/${alices}.json`, 'alice');
      expect(alice.json.data.read_at).toBeNull();
      expect((await get('.json', 'alice')).json).toMatchObject({
        pagination: { total: 25 },
        meta: { unread_count: 20 },
      });
    });
  });
});
