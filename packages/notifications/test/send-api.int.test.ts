import { sleep } from '@herald/test-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  createSendApi,
  type Delivery,
  type NotificationChannel,
  type SendResult,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

const SECRET = 'send-api-test-secret-0123456789';

interface Answer {
  status: number;
  headers: Headers;
  json: { data: SendResult; error: { code: string; message: string; issues?: unknown[] } };
}

describe.each(STORES)('the send API on $driver', ({ open }) => {
  let opened: TestStore;
  let app: ReturnType<typeof createSendApi>;
  /** What the `chat` channel was asked to send, as `recipient:type`. */
  let chat: string[];

  beforeAll(async () => {
    opened = await open();
    const recording: NotificationChannel = {
      async send(delivery: Delivery) {
        chat.push(`${delivery.notifiable.id}:${delivery.type}`);
      },
    };
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }), chat: recording },
    });
    app = createSendApi({ notifier, store: opened.store, secret: SECRET, chunkSize: 2 });
  });
  afterAll(() => opened.dispose());
  beforeEach(() => {
    chat = [];
  });

  const post = async (
    body: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${SECRET}` },
  ): Promise<Answer> => {
    const response = await app.request('/notification/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      headers: response.headers,
      json: (await response.json()) as Answer['json'],
    };
  };
  const stored = (type: string) => opened.store.count({ type });

  it('stores one notification per recipient and reports each id', async () => {
    const answer = await post({
      recipients: ['ada', 'bob', 'ada', 7],
      type: 'InvoicePaid',
      data: { title: 'Invoice paid', message: 'Invoice #12 was paid', icon: 'check', action_url: '/i/12' },
      channels: ['database', 'chat'],
    });
    expect(answer.status).toBe(200);
    expect(answer.json.data).toMatchObject({
      ok: true,
      delivered: { database: 3, chat: 3 },
      skipped: {},
      failures: [],
    });
    expect(answer.json.data.notifications.map((n) => n.recipient)).toEqual(['ada', 'bob', '7']);
    expect(chat.sort()).toEqual(['7:InvoicePaid', 'ada:InvoicePaid', 'bob:InvoicePaid']);
    const ada = await opened.store.list({ type: 'User', id: 'ada' }, { page: 1, limit: 10 });
    expect(ada.records).toEqual([
      expect.objectContaining({
        id: answer.json.data.notifications[0]?.id,
        type: 'InvoicePaid',
        data: { title: 'Invoice paid', message: 'Invoice #12 was paid', icon: 'check', action_url: '/i/12' },
      }),
    ]);
  });

  it('takes one recipient as a bare id, and uses the database channel when none is named', async () => {
    const answer = await post({
      recipients: 'solo',
      notifiable_type: 'Member',
      type: 'Single',
      data: { title: 'Hi', message: 'Just you' },
    });
    expect(answer.status).toBe(200);
    expect(answer.json.data.delivered).toEqual({ database: 1 });
    expect(chat).toEqual([]);
    expect((await opened.store.unreadCount({ type: 'Member', id: 'solo' })) === 1).toBe(true);
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong secret', { authorization: 'Bearer not-the-secret' }],
    ['the secret without Bearer', { authorization: SECRET }],
    ['the secret with one more character', { authorization: `Bearer ${SECRET}x` }],
  ])('answers 401 with a JSON body and sends nothing for %s', async (_name, headers) => {
    const answer = await post(
      { recipients: ['ada'], type: 'Refused', data: { title: 't', message: 'm' }, channels: ['chat'] },
      headers,
    );
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('unauthenticated');
    expect(await stored('Refused')).toBe(0);
    expect(chat).toEqual([]);
  });

  it.each([
    [{ type: 'X', data: { title: 't', message: 'm' } }, ['recipients']],
    [{ recipients: [], type: 'X', data: { title: 't', message: 'm' } }, ['recipients']],
    [{ recipients: ['a', ''], type: 'X', data: { title: 't', message: 'm' } }, ['recipients.1']],
    [{ recipients: ['a'], type: 'X', data: { message: 'm', icon: 'rocket' } }, ['data.icon', 'data.title']],
    [
      {
        recipients: ['a'],
        type: 'X',
        data: { title: 't', message: 'm', actions: [{ name: 'open' }] },
      },
      ['data.actions.0.label'],
    ],
    [
      { recipients: ['a'], type: 'X', data: { title: 't', message: 'm' }, channels: ['database', 'fax'] },
      ['channels.1'],
    ],
    [{ recipients: ['a'], type: 'X', data: { title: 't', message: 'm' }, extra: 1 }, ['(body)']],
  ])('answers 422 naming the field path for %j', async (body, paths) => {
    const answer = await post(body);
    expect(answer.status).toBe(422);
    expect(answer.json.error.code).toBe('validation_failed');
    const issues = answer.json.error.issues as Array<{ path: string }>;
    expect(issues.map((issue) => issue.path).sort()).toEqual(paths);
    expect(await stored('X')).toBe(0);
  });

  it('answers 413 for a body over the limit, before reading it whole', async () => {
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
    });
    const small = createSendApi({ notifier, store: opened.store, secret: SECRET, maxBodyBytes: 1024 });
    const response = await small.request('/notification/send', {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}` },
      body: JSON.stringify({
        recipients: Array.from({ length: 200 }, (_, i) => `user-${i}`),
        type: 'TooBig',
        data: { title: 't', message: 'm' },
      }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(await stored('TooBig')).toBe(0);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const answer = await post('{"recipients":');
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('bad_request');
  });

  it('sends a retried request once and answers the retry with the first answer', async () => {
    const body = {
      recipients: ['ada', 'bob', 'cy'],
      type: 'Retried',
      data: { title: 't', message: 'm' },
      channels: ['database', 'chat'],
    };
    const headers = { authorization: `Bearer ${SECRET}`, 'idempotency-key': 'order-1234-paid' };
    const first = await post(body, headers);
    const retry = await post(body, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    expect(await stored('Retried')).toBe(3);
    expect(chat).toHaveLength(3);
  });

  it('answers a key reused with another body 422, and a key still sending 409, sending nothing more', async () => {
    const headers = { authorization: `Bearer ${SECRET}`, 'idempotency-key': 'same-key' };
    const body = { recipients: ['a', 'b', 'c', 'd'], type: 'Raced', data: { title: 't', message: 'm' } };
    // Three at once: one sends, the other two find the key held (409) or already answered (200, replayed).
    const answers = await Promise.all([post(body, headers), post(body, headers), post(body, headers)]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      if (a.status === 409) expect(a.json.error.code).toBe('idempotency_key_in_progress');
      else expect(a.status).toBe(200);
    }
    expect(answers.filter((a) => a.status === 200 && !a.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(await stored('Raced')).toBe(4);

    const changed = await post({ ...body, recipients: ['a', 'b', 'c', 'e'] }, headers);
    expect(changed.status).toBe(422);
    expect(changed.json.error.code).toBe('idempotency_key_reused');
    expect(await stored('Raced')).toBe(4);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const headers = { authorization: `Bearer ${SECRET}`, 'idempotency-key': 'reordered' };
    await post({ type: 'Reordered', recipients: ['z'], data: { title: 't', message: 'm' } }, headers);
    const retry = await post(
      { data: { message: 'm', title: 't' }, recipients: ['z'], type: 'Reordered' },
      headers,
    );
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await stored('Reordered')).toBe(1);
  });

  it('frees a key when sending fails before anything went out, and keeps the failure once some did', async () => {
    let failFrom = 1;
    let calls = 0;
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
      // Preferences are read once per chunk: failing there stands in for the store going away mid-send.
      preferences: {
        refusedChannels: async () => {
          calls += 1;
          if (calls >= failFrom) throw new Error('store went away');
          return new Map();
        },
      },
    });
    const flaky = createSendApi({ notifier, store: opened.store, secret: SECRET, chunkSize: 2 });
    const request = (key: string) =>
      flaky.request('/notification/send', {
        method: 'POST',
        headers: { authorization: `Bearer ${SECRET}`, 'idempotency-key': key },
        body: JSON.stringify({
          recipients: ['a', 'b', 'c', 'd'],
          type: 'Flaky',
          data: { title: 't', message: 'm' },
        }),
      });

    expect((await request('fails-at-once')).status).toBe(500);
    expect(await stored('Flaky')).toBe(0);
    failFrom = Number.POSITIVE_INFINITY;
    const retried = await request('fails-at-once');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await stored('Flaky')).toBe(4);

    calls = 0;
    failFrom = 2;
    const partly = await request('fails-midway');
    expect(partly.status).toBe(500);
    expect(await partly.json()).toEqual({
      error: { code: 'internal_error', message: 'sending stopped after 2 recipients' },
    });
    failFrom = Number.POSITIVE_INFINITY;
    const replayed = await request('fails-midway');
    expect(replayed.status).toBe(500);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await stored('Flaky')).toBe(6);
  });

  it('refuses an idempotency key that is not visible ASCII', async () => {
    const answer = await post(
      { recipients: ['a'], type: 'BadKey', data: { title: 't', message: 'm' } },
      { authorization: `Bearer ${SECRET}`, 'idempotency-key': 'has space' },
    );
    expect(answer.status).toBe(422);
    expect(answer.json.error.issues).toEqual([
      { path: 'headers.idempotency-key', message: expect.any(String) },
    ]);
    expect(await stored('BadKey')).toBe(0);
  });

  it('forgets a key after its time to live, so the same key then sends again', async () => {
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
    });
    const shortLived = createSendApi({ notifier, store: opened.store, secret: SECRET, idempotencyTtlMs: 1 });
    const request = () =>
      shortLived.request('/notification/send', {
        method: 'POST',
        headers: { authorization: `Bearer ${SECRET}`, 'idempotency-key': 'short-lived' },
        body: JSON.stringify({ recipients: ['a'], type: 'Expired', data: { title: 't', message: 'm' } }),
      });
    expect((await request()).status).toBe(200);
    await sleep(20); // The key lives 1 ms: time has to pass.
    const again = await request();
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await stored('Expired')).toBe(2);
  });
});

describe('the send API without a secret', () => {
  it('answers 503 so a missing configuration is not mistaken for a wrong secret', async () => {
    const store = await createNotificationStore();
    const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
    const app = createSendApi({ notifier, store, secret: undefined });
    const response = await app.request('/notification/send', {
      method: 'POST',
      body: JSON.stringify({ recipients: ['a'], type: 'Off', data: { title: 't', message: 'm' } }),
    });
    expect(await store.count()).toBe(0);
    await store.close();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { code: 'send_api_disabled', message: 'the send API has no secret configured' },
    });
  });
});

describe('the send API on a store it cannot keep keys in', () => {
  it('refuses at creation a store not made by createNotificationStore', async () => {
    const store = await createNotificationStore();
    const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
    try {
      expect(() => createSendApi({ notifier, store: { ...store }, secret: SECRET })).toThrow(
        expect.objectContaining({ code: 'invalid_options' }),
      );
    } finally {
      await store.close();
    }
  });
});
