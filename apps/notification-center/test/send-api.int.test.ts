import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  createNotificationClient,
  isNotificationError,
  NotificationError,
  type SendResult,
  signUserToken,
} from '@herald/notifications';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENTER_STORES, type RunningCenter, startCenter } from './center-server.js';
import { connectPusher } from './pusher-client.js';
import { type RealtimeProcess, startRealtime, startTogether } from './realtime-process.js';
import { type WebhookReceiver, webhookReceiver } from './webhook-receiver.js';

const SECRET = 'center-send-secret-0123456789abcdef';
const TOKEN_SECRET = 'host-backend-user-token-secret-0123456789';
const APP = { id: 'send-test', key: 'send-test-key', secret: 'send-test-secret' };

/** The longest the event loop may stall during a 10,000-recipient send (documented in the README). */
const MAX_STALL_MS = 1500;

interface ErrorBody {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
}

describe.each(CENTER_STORES)('POST /notification/send over HTTP on %s', (store) => {
  let running: RunningCenter;
  let realtime: RealtimeProcess;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [realtime, receiver] = await startTogether([startRealtime(APP), webhookReceiver()]);
    running = await startCenter(store, {
      NOTIFICATION_API_SECRET: SECRET,
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
      TEAMCHAT_WEBHOOKS: JSON.stringify({ 'teamchat-alerts': receiver.url('/hooks/alerts/token') }),
    });
  });
  afterAll(async () => {
    await running?.stop();
    await Promise.all([realtime?.stop(), receiver?.close()]);
  });

  const send = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${running.base}/notification/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const count = (type: string) => running.center.store.count({ type });

  it('refuses a missing or wrong secret with 401 JSON and stores nothing', async () => {
    const body = { recipients: ['alice'], type: 'Refused', data: { title: 't', message: 'm' } };
    for (const authorization of ['', 'Bearer wrong-secret', `Basic ${SECRET}`]) {
      const response = await send(body, { authorization });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(((await response.json()) as ErrorBody).error.code).toBe('unauthenticated');
    }
    expect(await count('Refused')).toBe(0);
  });

  it('answers 422 with the field path of bad data', async () => {
    const response = await send({ recipients: ['alice'], type: 'Bad', data: { title: '', message: 'm' } });
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.issues?.map((issue) => issue.path)).toEqual(['data.title']);
  });

  it('stores a sent notification where the user’s JSON API reads it', async () => {
    const response = await send({
      recipients: ['alice', 'bob'],
      type: 'DeployFinished',
      data: { title: 'Deploy finished', message: 'v2 is live', icon: 'check' },
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: SendResult };
    expect(data).toMatchObject({ ok: true, delivered: { database: 2 }, failures: [] });
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: 'alice', expiresIn: '5m' });
    const list = await fetch(`${running.base}/notification/notifications.json?type=DeployFinished`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const alice = (await list.json()) as { data: unknown[]; meta: { unread_count: number } };
    expect(alice.data).toHaveLength(1);
    expect(alice.data[0]).toMatchObject({
      id: data.notifications[0]?.id,
      type: 'DeployFinished',
      data: { title: 'Deploy finished', message: 'v2 is live', icon: 'check' },
    });
  });

  it('sends a retried request once; the same key with another body is 422', async () => {
    const body = { recipients: ['alice'], type: 'Idempotent', data: { title: 't', message: 'm' } };
    const key = { 'idempotency-key': `k-${store}` };
    const first = await send(body, key);
    const second = await send(body, key);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    const other = await send({ ...body, recipients: ['bob'] }, key);
    expect(other.status).toBe(422);
    expect(((await other.json()) as ErrorBody).error.code).toBe('idempotency_key_reused');
    expect(await count('Idempotent')).toBe(1);
  });

  it('sends to 10,000 recipients in chunks, answering other requests meanwhile', async () => {
    const recipients = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
    const finished: string[] = [];
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const bulk = send(
      {
        recipients,
        type: 'Bulk',
        data: { title: 'Maintenance', message: 'Tonight at 22:00' },
        channels: ['database'],
      },
      { 'idempotency-key': `bulk-${store}` },
    ).then(async (response) => {
      finished.push('bulk');
      return response;
    });
    // Once the first chunk is stored, the bulk is under way: a second request must not wait for all of it.
    await expect.poll(() => count('Bulk'), { timeout: 60_000, interval: 5 }).toBeGreaterThan(0);
    const small = await send({
      recipients: ['alice'],
      type: 'Meanwhile',
      data: { title: 't', message: 'm' },
    });
    finished.push('small');
    expect(small.status).toBe(200);

    const response = await bulk;
    delay.disable();
    expect(finished).toEqual(['small', 'bulk']);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: SendResult };
    expect(data.ok).toBe(true);
    expect(data.delivered).toEqual({ database: 10_000 });
    expect(data.notifications).toHaveLength(10_000);
    expect(data.notifications[9_999]?.recipient).toBe('user-9999');
    expect(await count('Bulk')).toBe(10_000);
    const stallMs = delay.max / 1e6;
    expect(stallMs).toBeLessThan(MAX_STALL_MS);

    // The retried bulk is answered from the kept answer, and nothing is stored twice.
    const retry = await send(
      {
        recipients,
        type: 'Bulk',
        data: { title: 'Maintenance', message: 'Tonight at 22:00' },
        channels: ['database'],
      },
      { 'idempotency-key': `bulk-${store}` },
    );
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('Bulk')).toBe(10_000);
  });

  it('posts to a configured team-chat instance, honouring each recipient’s preferences', async () => {
    // Bob, signed in with a user token, turns team chat off for this type through the preferences route.
    const bobToken = await signUserToken({ secret: TOKEN_SECRET, userId: 'bob', expiresIn: '5m' });
    const put = await fetch(`${running.base}/notification/preferences.json`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ types: { ServerDown: { 'teamchat-alerts': false } } }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      data: { types: { ServerDown: { 'teamchat-alerts': false } } },
      meta: { channels: ['database', 'broadcast', 'teamchat-alerts', 'push'] },
    });

    const response = await send({
      recipients: ['alice', 'bob'],
      type: 'ServerDown',
      data: { title: 'Server down', message: 'db-1 is not answering', action_url: 'https://status.example' },
      channels: ['database', 'teamchat-alerts'],
    });
    const { data } = (await response.json()) as { data: SendResult };
    expect(data).toMatchObject({
      ok: true,
      delivered: { database: 2, 'teamchat-alerts': 1 },
      skipped: { 'teamchat-alerts': 1 },
    });
    expect(receiver.bodies.get('/hooks/alerts/token')).toEqual([
      { text: '*Server down*\ndb-1 is not answering\nhttps://status.example' },
    ]);
  });

  it('pushes a sent notification live to the recipient’s pusher-js client through the real-time server', async () => {
    const aliceToken = await signUserToken({ secret: TOKEN_SECRET, userId: 'alice', expiresIn: '5m' });
    // Authorised with the user token, as a host page would.
    const pusher = connectPusher({
      key: APP.key,
      port: realtime.port,
      authEndpoint: `${running.base}/broadcasting/auth`,
      headers: { authorization: `Bearer ${aliceToken}` },
    });
    try {
      const channel = pusher.subscribe('private-User.alice');
      await new Promise<void>((resolve, reject) => {
        channel.bind('pusher:subscription_succeeded', () => resolve());
        channel.bind('pusher:subscription_error', (error: unknown) =>
          reject(new Error(JSON.stringify(error))),
        );
      });
      const received: Array<Record<string, unknown>> = [];
      channel.bind('notification.created', (payload: Record<string, unknown>) => received.push(payload));

      // Twenty-five recipients go out in three batch_events calls; Alice is the first of them.
      const others = Array.from({ length: 24 }, (_, i) => `other-${i}`);
      const response = await send({
        recipients: ['alice', ...others],
        type: 'LivePush',
        data: { title: 'Build green', message: 'main passed', icon: 'check' },
        channels: ['database', 'broadcast'],
      });
      const { data } = (await response.json()) as { data: SendResult };
      expect(data.delivered).toEqual({ database: 25, broadcast: 25 });
      await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
      expect(received[0]).toMatchObject({
        id: data.notifications[0]?.id,
        type: 'LivePush',
        notifiable_id: 'alice',
        data: { title: 'Build green', message: 'main passed', icon: 'check' },
        read_at: null,
      });
    } finally {
      pusher.disconnect();
    }
  });

  it('is reached by the typed client, which throws NotificationError with the status and body', async () => {
    const client = createNotificationClient({ url: running.base, secret: SECRET });
    const result = await client.send(
      { recipients: 'carol', type: 'FromClient', data: { title: 'Hello', message: 'From the client' } },
      { idempotencyKey: `client-${store}` },
    );
    expect(result).toMatchObject({ ok: true, delivered: { database: 1 } });
    expect(result.notifications).toEqual([{ recipient: 'carol', id: expect.any(String) }]);

    const wrong = createNotificationClient({ url: `${running.base}/`, secret: 'not-the-secret' });
    const refused = await wrong
      .send({ recipients: 'carol', type: 'FromClient', data: { title: 'x', message: 'y' } })
      .catch((error: unknown) => error);
    expect(isNotificationError(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'request_failed',
      status: 401,
      body: { error: { code: 'unauthenticated' } },
    });

    const invalid = await client
      .send({ recipients: [], type: 'FromClient', data: { title: 'x', message: 'y' } })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(NotificationError);
    expect((invalid as NotificationError).status).toBe(422);
    expect((invalid as NotificationError).message).toContain('recipients');
    expect(await count('FromClient')).toBe(1);
  });
});

describe('the typed client without a service', () => {
  it('throws request_failed without a status when nothing answers', async () => {
    const client = createNotificationClient({ url: 'http://127.0.0.1:9', secret: 'x' });
    const error = await client
      .send({ recipients: 'a', type: 'T', data: { title: 't', message: 'm' } })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'request_failed', status: undefined });
  });
});
