import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  createNotificationClient,
  isNotificationError,
  NotificationError,
  type SendResult,
} from '@herald/notifications';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENTER_STORES, type RunningCenter, startCenter } from './center-server.js';

const SECRET = 'center-send-secret-0123456789abcdef';

/** The longest the event loop may stall during a 10,000-recipient send (documented in the README). */
const MAX_STALL_MS = 1500;

interface ErrorBody {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
}

describe.each(CENTER_STORES)('POST /notification/send over HTTP on %s', (store) => {
  let running: RunningCenter;
  beforeAll(async () => {
    running = await startCenter(store, { NOTIFICATION_API_SECRET: SECRET });
  });
  afterAll(() => running.stop());

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
    const alice = await running.center.store.list({ type: 'User', id: 'alice' }, { page: 1, limit: 5 });
    expect(alice.records[0]).toMatchObject({
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
      { recipients, type: 'Bulk', data: { title: 'Maintenance', message: 'Tonight at 22:00' } },
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
      { recipients, type: 'Bulk', data: { title: 'Maintenance', message: 'Tonight at 22:00' } },
      { 'idempotency-key': `bulk-${store}` },
    );
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('Bulk')).toBe(10_000);
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
