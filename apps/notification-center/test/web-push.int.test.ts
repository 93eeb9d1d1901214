import { createECDH, randomBytes } from 'node:crypto';
import {
  createNotificationClient,
  type NotificationClient,
  type SendRequest,
  signUserToken,
} from '@herald/notifications';
import { isSealed } from '@herald/protocol-core';
import { fence, freePort, sql, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../../../packages/email-channel/test/smtp-sink.js';
import {
  type PushServiceDouble,
  type ReceivedPush,
  startPushServiceDouble,
} from '../../../packages/web-push-channel/test/push-service-double.js';
import { type RunningCenter, serveCenter, storeEnvFor } from './center-server.js';
import { connectPusher, type PusherClient } from './pusher-client.js';
import { type RealtimeProcess, startRealtime } from './realtime-process.js';

// Real here: Herald's real-time server (its built bin) tells who has a bell open, pusher-js is the bell's live
// connection, the notification center runs on a real port with its store (PostgreSQL), pushes go out through the
// web-push library over TLS, email goes to a real SMTP server on loopback. The push service is a DOUBLE: no real
// one (FCM, autopush, Apple's) is reachable from here. It follows RFC 8030 (201 Created with Location, TTL
// required), checks the VAPID JWT of RFC 8292 and decrypts each payload as RFC 8291/8188 say, with node:crypto
// (see packages/web-push-channel/test/push-service-double.ts). One store kind only: packages/notifications'
// store tests run the push queries on PGlite and PostgreSQL.

const APP = { id: 'push-test', key: 'push-test-key', secret: 'push-test-secret' };
const API_SECRET = 'push-tests-api-secret-0123';
const TOKEN_SECRET = 'push-tests-user-token-secret-0123456789';
const SUBJECT = 'mailto:ops@example.test';
// The window is wider than the away-delivery test's: five sends one after another on a busy machine must all
// fall inside it, or the last ones rightly start a digest of their own.
const DIGESTED = { away_after_seconds: 1, digest_window_seconds: 6 };

describe('Web Push from the notification center', () => {
  let realtime: RealtimeProcess;
  let smtp: SmtpSink;
  let service: PushServiceDouble;
  let storeEnv: Record<string, string>;
  let cleanup: () => Promise<void>;
  let running: RunningCenter | undefined;
  let client: NotificationClient;
  let markers = 0;
  const pushers: PusherClient[] = [];

  async function startCenter() {
    const port = await freePort();
    running = await serveCenter(
      {
        ...storeEnv,
        REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
        REALTIME_APP_ID: APP.id,
        REALTIME_APP_KEY: APP.key,
        REALTIME_APP_SECRET: APP.secret,
        NOTIFICATION_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        NOTIFICATION_API_SECRET: API_SECRET,
        NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
        NOTIFICATION_TYPES: JSON.stringify({ Digested: DIGESTED }),
        NOTIFICATION_VAPID_SUBJECT: SUBJECT,
        // The double's self-signed certificate, trusted besides the usual roots.
        NOTIFICATION_PUSH_CA_FILE: service.caFile,
        // The double listens on loopback, which no default push service host is.
        NOTIFICATION_PUSH_ENDPOINTS: '127.0.0.1',
      },
      port,
    );
    client = createNotificationClient({ url: running.base, secret: API_SECRET });
  }

  async function stopCenter() {
    const stopping = running;
    running = undefined;
    await stopping?.stop();
  }

  beforeAll(async () => {
    [realtime, smtp, service] = await Promise.all([
      startRealtime(APP),
      startSmtpSink(),
      startPushServiceDouble(),
    ]);
    // PostgreSQL: it starts in a moment where PGlite compiles for seconds on a busy machine, twice here.
    ({ env: storeEnv, cleanup } = await storeEnvFor('postgres'));
    await startCenter();
  });

  afterAll(async () => {
    for (const pusher of pushers) pusher.disconnect();
    await stopCenter();
    await Promise.all([realtime?.stop(), smtp?.stop(), service?.stop()]);
    await cleanup?.();
  });

  const user = (name: string) => ({ id: `push-${name}`, email: `push-${name}@example.test` });
  const base = () => running?.base as string;
  const send = (request: SendRequest) => client.send(request);
  const pushesTo = (endpoint: string): ReceivedPush[] =>
    service.received.filter((push) => push.endpoint === endpoint);

  async function api(userId: string, path: string, init: RequestInit = {}) {
    const token = await signUserToken({ secret: TOKEN_SECRET, userId });
    const response = await fetch(`${base()}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
    type Body = { data?: unknown; error?: { code?: string; issues?: Array<{ path: string }> } };
    return { status: response.status, body: (await response.json()) as Body };
  }

  /** Turns push on for a user as the bell does: the key from the API, a browser subscription, saved by the API. */
  async function subscribe(userId: string): Promise<string> {
    const key = await api(userId, '/notification/push/key.json');
    expect(key.status).toBe(200);
    const subscription = service.subscribe((key.body.data as { public_key: string }).public_key);
    const saved = await api(userId, '/notification/push/subscriptions.json', {
      method: 'POST',
      body: JSON.stringify({ ...subscription, label: 'Test browser' }),
    });
    expect(saved.status).toBe(201);
    return subscription.endpoint;
  }

  const publicKeyOf = (answer: { body: { data?: unknown } }) =>
    (answer.body.data as { public_key: string }).public_key;

  async function endpointsOf(userId: string): Promise<string[]> {
    const listed = await api(userId, '/notification/push/subscriptions.json');
    return (listed.body.data as Array<{ endpoint: string }>).map((item) => item.endpoint);
  }

  /** Proves no push reached `unwanted`: a marker push to another user, due later, arrives first. */
  async function fencePushes(unwanted: string, afterSeconds: number) {
    markers += 1;
    const marker = user(`marker-${markers}`);
    const markerEndpoint = await subscribe(marker.id);
    await fence({
      received: () => service.received,
      sendMarker: () =>
        send({
          recipients: [marker.id],
          type: 'Marker',
          data: { title: `Marker ${markers}`, message: 'fence' },
          away_after_seconds: afterSeconds,
        }),
      isMarker: (push) => push.endpoint === markerEndpoint,
      unwanted: (push) => push.endpoint === unwanted,
      what: `a push to ${unwanted}`,
      limitMs: 60_000,
    });
  }

  it('serves the service worker with its content type and a scope of the whole origin allowed', async () => {
    const response = await fetch(`${base()}/notification/sw.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('service-worker-allowed')).toBe('/');
    expect(await response.text()).toContain("addEventListener('push'");
  });

  it('saves, lists and deletes a user’s subscriptions, refusing what is not theirs or not valid', async () => {
    const owner = user('api');
    const endpoint = await subscribe(owner.id);
    const listed = await api(owner.id, '/notification/push/subscriptions.json');
    expect(listed.body.data).toMatchObject([{ endpoint, label: 'Test browser' }]);

    expect((await fetch(`${base()}/notification/push/key.json`)).status).toBe(401);
    const bad = await api(owner.id, '/notification/push/subscriptions.json', {
      method: 'POST',
      body: JSON.stringify({ endpoint: 'http://push.example/x', keys: { p256dh: 'AAAA', auth: 'AAAA' } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error?.issues?.map((i) => i.path)).toEqual(['endpoint', 'keys.p256dh', 'keys.auth']);

    const remove = (userId: string) =>
      api(userId, '/notification/push/subscriptions.json', {
        method: 'DELETE',
        body: JSON.stringify({ endpoint }),
      });
    expect((await remove(user('intruder').id)).status).toBe(404);
    expect(await endpointsOf(owner.id)).toEqual([endpoint]);
    expect((await remove(owner.id)).status).toBe(200);
    expect(await endpointsOf(owner.id)).toEqual([]);
  });

  it('pushes to a recipient who is away after the delay, encrypted and signed with VAPID', async () => {
    const bob = user('away');
    const endpoint = await subscribe(bob.id);
    const sentAt = Date.now();
    const result = await send({
      recipients: [bob.id],
      type: 'CommentReplied',
      data: { title: 'Ada replied', message: 'Looks good to me', action_url: 'https://app.example/posts/7' },
      away_after_seconds: 1,
    });
    await until(() => pushesTo(endpoint).length === 1, { what: 'the push to bob', limitMs: 30_000 });
    const push = pushesTo(endpoint)[0] as ReceivedPush;
    expect(push.receivedAt - sentAt).toBeGreaterThanOrEqual(1000);
    expect(push.message).toEqual({
      title: 'Ada replied',
      body: 'Looks good to me',
      url: 'https://app.example/posts/7',
      tag: result.notifications[0]?.id,
      ids: [result.notifications[0]?.id],
    });
    expect(push.ttl).toBe(86_400);
    expect(push.claims).toMatchObject({ aud: service.origin, sub: SUBJECT });
    expect(service.refused).toEqual([]);
  });

  it('sends five notifications inside the digest window as one push and one email', async () => {
    const carol = user('digest');
    const endpoint = await subscribe(carol.id);
    for (let index = 1; index <= 5; index += 1) {
      await send({
        recipients: [carol],
        type: 'Digested',
        data: { title: `Comment ${index}`, message: `Body ${index}` },
      });
    }
    await until(() => pushesTo(endpoint).length === 1 && smtp.to(carol.email).length === 1, {
      what: 'the digest push and email',
      limitMs: 30_000,
    });
    await fencePushes('nobody', DIGESTED.away_after_seconds + DIGESTED.digest_window_seconds + 1);
    expect(pushesTo(endpoint)).toHaveLength(1);
    expect(smtp.to(carol.email)).toHaveLength(1);
    expect(pushesTo(endpoint)[0]?.message).toMatchObject({
      title: '5 new notifications',
      body: 'Comment 1\nComment 2\nComment 3\nComment 4\nComment 5',
    });
    expect(smtp.to(carol.email)[0]?.mail.subject).toBe('5 new notifications');
  });

  it('sends many sends at once to one recipient as one push and one email holding every item', async () => {
    const gus = user('at-once');
    const endpoint = await subscribe(gus.id);
    const titles = Array.from({ length: 8 }, (_, index) => `At once ${index + 1}`);
    // Eight sends at once, each its own request and its own transaction; a short window keeps the test short.
    await Promise.all(
      titles.map((title) =>
        send({
          recipients: [gus],
          type: 'AtOnce',
          data: { title, message: 'concurrent' },
          away_after_seconds: 1,
          digest_window_seconds: 2,
        }),
      ),
    );
    // A marker due after the window: once it has come, the digest (and any second one) has gone out.
    await fencePushes('nobody', 4);
    expect(pushesTo(endpoint)).toHaveLength(1);
    expect(smtp.to(gus.email)).toHaveLength(1);
    const push = pushesTo(endpoint)[0] as ReceivedPush;
    expect(push.message.title).toBe('8 new notifications');
    expect(push.message.ids).toHaveLength(8);
    const mail = smtp.to(gus.email)[0]?.mail;
    expect(mail?.subject).toBe('8 new notifications');
    for (const title of titles) expect(mail?.text).toContain(`${title}\nconcurrent`);
  });

  it('sends a collapsed notification once, with the latest content and its count', async () => {
    const hal = user('collapsed');
    const endpoint = await subscribe(hal.id);
    const comment = (actor: string) =>
      send({
        recipients: [hal],
        type: 'Commented',
        data: { title: `${actor} commented on post 7`, message: `${actor}: nice`, actor },
        collapse_key: 'post-7',
        away_after_seconds: 1,
      });
    await comment('Bo');
    const latest = await comment('Ada');
    await fencePushes('nobody', 2);
    expect(pushesTo(endpoint)).toHaveLength(1);
    expect(smtp.to(hal.email)).toHaveLength(1);
    expect(pushesTo(endpoint)[0]?.message).toMatchObject({
      title: 'Ada commented on post 7',
      body: 'Ada: nice\nAda and 1 other',
      ids: [latest.notifications[0]?.id],
    });
    expect(smtp.to(hal.email)[0]?.mail.text).toContain('Ada commented on post 7\nAda and 1 other\nAda: nice');
  });

  it('refuses a push endpoint on a host it does not accept, with a 400 naming why', async () => {
    const owner = user('ssrf');
    const subscription = service.subscribe(publicKeyOf(await api(owner.id, '/notification/push/key.json')));
    const refused = await api(owner.id, '/notification/push/subscriptions.json', {
      method: 'POST',
      body: JSON.stringify({ ...subscription, endpoint: 'https://169.254.169.254/latest/meta-data' }),
    });
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          code: 'endpoint_not_allowed',
          message: "the endpoint's host 169.254.169.254 is not a push service accepted here",
        },
      },
    });
    expect(await endpointsOf(owner.id)).toEqual([]);
  });

  it('gives a recipient with a bell open the bell notification and no push', async () => {
    const alice = user('online');
    const endpoint = await subscribe(alice.id);
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: alice.id });
    const pusher = connectPusher({
      key: APP.key,
      port: realtime.port,
      authEndpoint: `${base()}/broadcasting/auth`,
      headers: { authorization: `Bearer ${token}` },
    });
    pushers.push(pusher);
    const bell = pusher.subscribe(`private-User.${alice.id}`);
    const created: Array<{ id: string }> = [];
    bell.bind('notification.created', (data: { id: string }) => created.push(data));
    await new Promise<void>((resolve, reject) => {
      bell.bind('pusher:subscription_succeeded', () => resolve());
      bell.bind('pusher:subscription_error', (error: unknown) => reject(new Error(JSON.stringify(error))));
    });
    await send({
      recipients: [alice.id],
      type: 'Mentioned',
      data: { title: 'Ada mentioned you', message: 'in #general' },
      away_after_seconds: 1,
    });
    await until(() => created.length === 1, { what: 'the bell notification', limitMs: 30_000 });
    await fencePushes(endpoint, 2);
  });

  it('cancels the push when the notification is read in the bell before the delay ends', async () => {
    const dave = user('reader');
    const endpoint = await subscribe(dave.id);
    const result = await send({
      recipients: [dave.id],
      type: 'Mentioned',
      data: { title: 'Read me', message: 'soon' },
      away_after_seconds: 2,
    });
    const read = await api(dave.id, `/notification/notifications/${result.notifications[0]?.id}/read.json`, {
      method: 'PATCH',
    });
    expect(read.status).toBe(200);
    await fencePushes(endpoint, 3);
  });

  it('removes the subscriptions the push service answers 404 or 410 for', async () => {
    const erin = user('gone');
    const unsubscribed = await subscribe(erin.id);
    const expired = await subscribe(erin.id);
    const healthy = await subscribe(erin.id);
    service.answer(unsubscribed, 410);
    service.answer(expired, 404);
    await send({
      recipients: [erin.id],
      type: 'Mentioned',
      data: { title: 'Still there?', message: 'one device is' },
      away_after_seconds: 1,
    });
    await until(() => pushesTo(healthy).length === 1, {
      what: 'the push to the healthy device',
      limitMs: 30_000,
    });
    await until(async () => (await endpointsOf(erin.id)).length === 1, {
      what: 'the gone subscriptions removed',
      limitMs: 30_000,
    });
    expect(await endpointsOf(erin.id)).toEqual([healthy]);
  });

  it('keeps the generated VAPID keys across a restart, so saved subscriptions still work', async () => {
    const frank = user('restart');
    const endpoint = await subscribe(frank.id);
    const before = await api(frank.id, '/notification/push/key.json');
    await stopCenter();
    await startCenter();
    expect(await api(frank.id, '/notification/push/key.json')).toEqual(before);
    await send({
      recipients: [frank.id],
      type: 'Mentioned',
      data: { title: 'After the restart', message: 'same keys' },
      away_after_seconds: 1,
    });
    // The double refuses a push whose VAPID key is not the one the browser subscribed with (403).
    await until(() => pushesTo(endpoint).length === 1, {
      what: 'the push after the restart',
      limitMs: 30_000,
    });
    expect(service.refused).toEqual([]);
  });
});

describe('the notification center’s VAPID private key at rest and its default push hosts', () => {
  let storeEnv: Record<string, string>;
  let cleanup: () => Promise<void>;
  let running: RunningCenter | undefined;
  const key = randomBytes(32).toString('hex');

  beforeAll(async () => {
    ({ env: storeEnv, cleanup } = await storeEnvFor('postgres'));
  });

  afterAll(async () => {
    await running?.stop();
    await cleanup?.();
  });

  async function publicKey(center: RunningCenter): Promise<string> {
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: 'keeper' });
    const response = await fetch(`${center.base}/notification/push/key.json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await response.json()) as { data: { public_key: string } }).data.public_key;
  }

  const start = (storeKey?: string) =>
    serveCenter({
      ...storeEnv,
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      ...(storeKey ? { NOTIFICATION_STORE_KEY: storeKey } : {}),
    });

  it('seals the generated private key with NOTIFICATION_STORE_KEY and starts again only with that key', async () => {
    running = await start(key);
    const first = await publicKey(running);
    const rows = await sql(
      `select private_key from "${storeEnv.NOTIFICATION_DATABASE_SCHEMA}".notification_vapid_keys`,
    );
    expect(rows.rows).toHaveLength(1);
    expect(isSealed(rows.rows[0].private_key)).toBe(true);
    await running.stop();
    running = undefined;

    await expect(start()).rejects.toThrow(
      /VAPID private key is sealed \(key id [0-9a-f]{12}\); give the key it was sealed with\. set NOTIFICATION_STORE_KEY/,
    );
    await expect(start(randomBytes(32).toString('hex'))).rejects.toThrow(
      /does not open it\. NOTIFICATION_STORE_KEY is not the key it was sealed with/,
    );
    running = await start(key);
    expect(await publicKey(running)).toBe(first);
  });

  it('accepts only the known push services’ endpoints when NOTIFICATION_PUSH_ENDPOINTS is unset', async () => {
    running ??= await start(key);
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: 'hosts' });
    const post = async (endpoint: string) => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const response = await fetch(`${running?.base}/notification/push/subscriptions.json`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          endpoint,
          keys: {
            p256dh: ecdh.getPublicKey().toString('base64url'),
            auth: randomBytes(16).toString('base64url'),
          },
        }),
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    };
    expect(await post('https://127.0.0.1:8443/push/1')).toMatchObject({
      status: 400,
      body: { error: { code: 'endpoint_not_allowed' } },
    });
    expect((await post('https://fcm.googleapis.com/fcm/send/hosts-device')).status).toBe(201);
    expect((await post('https://web.push.apple.com/hosts-device')).status).toBe(201);
  });
});
