import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import {
  createNotificationStore,
  createPushSubscriptions,
  type Delivery,
  isNotificationError,
  type NotificationStore,
  type PushSubscriptions,
} from '@herald/notifications';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebPushChannel, generateVapidKeys, type WebPushChannel } from '../src/index.js';
import { type PushServiceDouble, startPushServiceDouble } from './push-service-double.js';

// The push service is a double (test/push-service-double.ts says why and which RFC rules it checks); the store
// is the real one (embedded PGlite in memory) and the pushes go through the real web-push library over TLS.

// One store for the file: opening PGlite is the slow part.
let store: NotificationStore;
let subscriptions: PushSubscriptions;
beforeAll(async () => {
  store = await createNotificationStore();
  subscriptions = createPushSubscriptions(store);
});
afterAll(async () => store?.close());

describe('the Web Push channel', () => {
  let service: PushServiceDouble;
  let channel: WebPushChannel;
  let agent: Agent;
  let publicKey: string;

  beforeAll(async () => {
    service = await startPushServiceDouble();
    const keys = await subscriptions.vapidKeys(generateVapidKeys);
    publicKey = keys.publicKey;
    agent = new Agent({ ca: readFileSync(service.caFile, 'utf8') });
    channel = createWebPushChannel({
      vapid: { ...keys, subject: 'mailto:ops@example.test' },
      subscriptions,
      ttlSeconds: 600,
      agent,
    });
  });

  afterAll(async () => {
    agent?.destroy();
    await service?.stop();
  });

  let users = 0;
  const user = () => ({ type: 'User', id: `push-${++users}` });

  function delivery(owner: { type: string; id: string }, title: string, actionUrl?: string): Delivery {
    const data = { title, message: `${title}: the message`, ...(actionUrl ? { action_url: actionUrl } : {}) };
    return {
      id: randomUUID(),
      notifiable: owner,
      notification: { type: 'Commented', via: () => ['push'], toDatabase: () => data },
      type: 'Commented',
      createdAt: new Date(),
      anonymous: false,
    };
  }

  async function subscribed(owner: { type: string; id: string }) {
    const json = service.subscribe(publicKey);
    await subscriptions.save(owner, { endpoint: json.endpoint, keys: json.keys });
    return json.endpoint;
  }

  it('pushes one notification to every device of the recipient, encrypted and VAPID-signed', async () => {
    const ada = user();
    const phone = await subscribed(ada);
    const laptop = await subscribed(ada);
    const note = delivery(ada, 'Ada replied', 'https://app.example/posts/7');
    await channel.send(note);

    const pushes = service.received.filter(
      (push) => (push.message.ids as string[] | undefined)?.[0] === note.id,
    );
    expect(pushes.map((push) => push.endpoint).sort()).toEqual([phone, laptop].sort());
    for (const push of pushes) {
      expect(push.message).toMatchObject({
        title: 'Ada replied',
        body: 'Ada replied: the message',
        url: 'https://app.example/posts/7',
      });
      expect(push.ttl).toBe(600);
      expect(push.claims.aud).toBe(service.origin);
      expect(push.claims.sub).toBe('mailto:ops@example.test');
    }
    expect(service.refused).toEqual([]);
  });

  it('pushes a digest of several notifications as one message with their titles', async () => {
    const bob = user();
    const endpoint = await subscribed(bob);
    const notes = ['First', 'Second', 'Third'].map((title) => delivery(bob, title));
    await channel.sendDigest(notes);

    const pushes = service.received.filter((push) => push.endpoint === endpoint);
    expect(pushes).toHaveLength(1);
    expect(pushes[0]?.message).toMatchObject({
      title: '3 new notifications',
      body: 'First\nSecond\nThird',
      ids: notes.map((note) => note.id),
    });
  });

  it('removes the subscriptions the push service answers 404 or 410 for, and keeps the others', async () => {
    const cy = user();
    const gone = await subscribed(cy);
    const unknown = await subscribed(cy);
    const healthy = await subscribed(cy);
    service.answer(gone, 410);
    service.answer(unknown, 404);
    await channel.send(delivery(cy, 'Hello'));

    expect((await subscriptions.listFor(cy)).map((device) => device.endpoint)).toEqual([healthy]);
    expect(service.received.filter((push) => push.endpoint === healthy)).toHaveLength(1);
  });

  it('reports other failures as send_failed and keeps the subscription', async () => {
    const dee = user();
    const failing = await subscribed(dee);
    service.answer(failing, 500);
    const error = await channel.send(delivery(dee, 'Hello')).catch((caught: unknown) => caught);
    expect(isNotificationError(error) && error.code).toBe('send_failed');
    expect(isNotificationError(error) && error.channel).toBe('push');
    expect((error as Error).message).toContain('1 of 1 devices');
    expect((await subscriptions.listFor(dee)).map((device) => device.endpoint)).toEqual([failing]);
  });

  it('skips endpoints its endpointAllowed refuses, and pushes to the others', async () => {
    const cy = user();
    const kept = await subscribed(cy);
    const refused = await subscribed(cy);
    const narrowed = createWebPushChannel({
      vapid: { ...(await subscriptions.vapidKeys(generateVapidKeys)), subject: 'mailto:ops@example.test' },
      subscriptions,
      agent,
      endpointAllowed: (url) => url.href !== refused,
    });
    await narrowed.send(delivery(cy, 'Only one'));
    expect(service.received.filter((push) => push.endpoint === kept)).toHaveLength(1);
    expect(service.received.filter((push) => push.endpoint === refused)).toHaveLength(0);
    expect((await subscriptions.listFor(cy)).map((device) => device.endpoint)).toEqual([kept, refused]);
  });

  it('sends nothing, and fails nothing, for a recipient without devices', async () => {
    const before = service.received.length;
    await channel.send(delivery(user(), 'Nobody listens'));
    expect(service.received.length).toBe(before);
  });

  it('refuses an unusable VAPID subject or key when created', () => {
    const keys = generateVapidKeys();
    const attempt = (vapid: { subject: string; publicKey: string; privateKey: string }) => {
      try {
        createWebPushChannel({ vapid, subscriptions });
        return undefined;
      } catch (error) {
        return isNotificationError(error) ? error.code : error;
      }
    };
    expect(attempt({ ...keys, subject: 'ops@example.test' })).toBe('invalid_options');
    expect(attempt({ ...keys, subject: 'mailto:ops@example.test', privateKey: 'short' })).toBe(
      'invalid_options',
    );
  });
});

describe('push subscriptions in the store', () => {
  const keys = { p256dh: 'BPublicKey', auth: 'authsecret' };

  it('keeps the VAPID key pair made on the first call (by the channel tests above) for every later call', async () => {
    const first = await subscriptions.vapidKeys(() => {
      throw new Error('the channel tests made the pair already');
    });
    const second = await subscriptions.vapidKeys(() => {
      throw new Error('must not generate again');
    });
    expect(second).toEqual(first);
  });

  it('gives an endpoint to the last user who saved it', async () => {
    const endpoint = 'https://push.example/shared-browser';
    const ada = { type: 'User', id: 'ada' };
    const bob = { type: 'User', id: 'bob' };
    await subscriptions.save(ada, { endpoint, keys, label: 'Kitchen laptop' });
    await subscriptions.save(bob, { endpoint, keys, userAgent: 'Firefox' });
    expect(await subscriptions.listFor(ada)).toEqual([]);
    expect(await subscriptions.listFor(bob)).toMatchObject([{ endpoint, owner: bob, userAgent: 'Firefox' }]);
    expect(await subscriptions.remove(ada, endpoint)).toBe(false);
    expect(await subscriptions.remove(bob, endpoint)).toBe(true);
  });
});
