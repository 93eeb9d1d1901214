import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseChannel,
  createNotificationApi,
  createNotifier,
  type Delivery,
  type Notification,
  type NotificationChannel,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

class CommentReplied implements Notification {
  via() {
    return ['database', 'chat'];
  }
  toDatabase() {
    return { title: 'New reply', message: 'Someone replied to your comment' };
  }
}

class InvoicePaid implements Notification {
  via() {
    return ['database', 'chat'];
  }
  toDatabase() {
    return { title: 'Invoice paid', message: 'Invoice #12 was paid' };
  }
}

describe.each(STORES)('channel preferences on $driver', ({ open }) => {
  let opened: TestStore;
  let app: ReturnType<typeof createNotificationApi>;

  beforeAll(async () => {
    opened = await open();
    app = createNotificationApi({
      store: opened.store,
      authenticate: (c) => {
        const id = c.req.header('x-user');
        return id ? { id } : undefined;
      },
      csrfToken: (_c, user) => `csrf-${user.id}`,
      channels: ['database', 'chat'],
    });
  });
  afterAll(() => opened.dispose());

  const call = async (user: string, method: 'GET' | 'PUT', body?: unknown) => {
    const response = await app.request('/notification/preferences.json', {
      method,
      headers: { 'x-user': user, 'x-csrf-token': `csrf-${user}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, never> };
  };

  it('answers empty preferences and the channels a user can choose from', async () => {
    expect(await call('nobody', 'GET')).toEqual({
      status: 200,
      json: { data: { types: {} }, meta: { channels: ['database', 'chat'] } },
    });
  });

  it('stores what PUT gives, replaces it on the next PUT, and keeps each user’s apart', async () => {
    const first = await call('ada', 'PUT', {
      types: { CommentReplied: { chat: false }, '*': { chat: true, database: true } },
    });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({
      types: { '*': { chat: true, database: true }, CommentReplied: { chat: false } },
    });
    expect((await call('bob', 'GET')).json.data).toEqual({ types: {} });

    await call('ada', 'PUT', { types: { CommentReplied: { chat: false } } });
    expect((await call('ada', 'GET')).json.data).toEqual({ types: { CommentReplied: { chat: false } } });
  });

  it('answers 422 with the path of an unknown channel or a bad value, and keeps what was stored', async () => {
    await call('cy', 'PUT', { types: { InvoicePaid: { chat: false } } });
    const unknown = await call('cy', 'PUT', { types: { CommentReplied: { fax: false } } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({ issues: [{ path: 'types.CommentReplied.fax' }] });
    const bad = await call('cy', 'PUT', { types: { CommentReplied: { chat: 'no' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toMatchObject({ issues: [{ path: 'types.CommentReplied.chat' }] });
    expect((await call('cy', 'GET')).json.data).toEqual({ types: { InvoicePaid: { chat: false } } });
  });

  it('asks a cookie session for its CSRF token on PUT', async () => {
    const response = await app.request('/notification/preferences.json', {
      method: 'PUT',
      headers: { 'x-user': 'ada' },
      body: JSON.stringify({ types: {} }),
    });
    expect(response.status).toBe(403);
  });

  it('is enforced by the sender before any channel runs, per type and through `*`', async () => {
    const store = opened.store;
    await store.setPreferences({ type: 'User', id: 'quiet' }, { CommentReplied: { chat: false } });
    await store.setPreferences({ type: 'User', id: 'silent' }, { '*': { chat: false, database: false } });
    const chat: string[] = [];
    const recording: NotificationChannel = {
      async send(delivery: Delivery) {
        chat.push(`${delivery.notifiable.id}:${delivery.type}`);
      },
    };
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store }), chat: recording },
      preferences: store,
    });
    const users = ['quiet', 'silent', 'loud'].map((id) => ({ type: 'User', id }));

    const replied = await notifier.send(users, new CommentReplied());
    expect(replied).toMatchObject({
      ok: true,
      delivered: { database: 2, chat: 1 },
      skipped: { chat: 2, database: 1 },
    });
    const paid = await notifier.send(users, new InvoicePaid());
    expect(paid).toMatchObject({ delivered: { database: 2, chat: 2 }, skipped: { chat: 1, database: 1 } });
    expect(chat.sort()).toEqual(['loud:CommentReplied', 'loud:InvoicePaid', 'quiet:InvoicePaid']);
    expect(await store.unreadCount({ type: 'User', id: 'silent' })).toBe(0);
    expect(await store.unreadCount({ type: 'User', id: 'quiet' })).toBe(2);

    // In-process `notify` goes through the same check.
    chat.length = 0;
    await notifier.notifiable({ type: 'User', id: 'quiet' }).notify(new CommentReplied());
    expect(chat).toEqual([]);
  });

  // Last: the API above holds the store this closes.
  it('keeps preferences once the store is closed and opened again', async () => {
    const reopened = await opened.reopen();
    expect(await reopened.getPreferences({ type: 'User', id: 'ada' })).toEqual({
      CommentReplied: { chat: false },
    });
  });
});
