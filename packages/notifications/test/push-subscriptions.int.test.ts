import { createECDH, randomBytes } from 'node:crypto';
import { createSecretCipher, isSealed } from '@herald/protocol-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPushSubscriptionApi,
  createPushSubscriptions,
  PUSH_KEY_ROUTE,
  PUSH_SUBSCRIPTIONS_ROUTE,
  type PushSubscriptions,
} from '../src/index.js';
import { storeConnectionOf } from '../src/internal/store-connection.js';
import { STORES, type TestStore } from './stores.js';

/** Keys as a browser's subscription carries them: a P-256 point and a 16-byte secret, base64url. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

describe.each(STORES)('push subscriptions on $driver', ({ open }) => {
  let opened: TestStore;
  let subscriptions: PushSubscriptions;
  let app: ReturnType<typeof createPushSubscriptionApi>;

  beforeAll(async () => {
    opened = await open();
    subscriptions = createPushSubscriptions(opened.store);
    app = createPushSubscriptionApi({
      subscriptions,
      publicKey: 'the-public-key',
      authenticate: (c) => {
        const id = c.req.header('x-user');
        return id ? { id } : undefined;
      },
      csrfToken: (_c, user) => `csrf-${user.id}`,
      endpointAllowed: (url) => url.hostname !== 'blocked.example',
    });
    // Opening PGlite compiles its WebAssembly: on a busy 2-core machine that alone can pass the default 30 s.
  }, 120_000);
  afterAll(() => opened?.dispose());

  const call = async (user: string | undefined, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { 'user-agent': 'Test Browser/1.0' };
    if (user) Object.assign(headers, { 'x-user': user, 'x-csrf-token': `csrf-${user}` });
    const response = await app.request(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    type Body = { data?: unknown; error?: { code?: string; issues?: Array<{ path: string }> } };
    return { status: response.status, json: (await response.json()) as Body };
  };

  it('keeps one VAPID key pair: two first calls at once agree, and later calls read it', async () => {
    let made = 0;
    const generate = () => {
      made += 1;
      return { publicKey: `public-${made}`, privateKey: `private-${made}` };
    };
    const [first, second] = await Promise.all([
      subscriptions.vapidKeys(generate),
      subscriptions.vapidKeys(generate),
    ]);
    expect(second).toEqual(first);
    expect(await subscriptions.vapidKeys(generate)).toEqual(first);
  });

  it('seals the VAPID private key with a key, and refuses to open it without that key', async () => {
    const plain = await subscriptions.vapidKeys(() => ({ publicKey: 'public-x', privateKey: 'private-x' }));
    const stored = async () =>
      (
        await storeConnectionOf(opened.store)
          ?.db.selectFrom('notification_vapid_keys')
          .select('private_key')
          .executeTakeFirstOrThrow()
      )?.private_key as string;
    expect(await stored()).toBe(plain.privateKey);
    const cipher = createSecretCipher(randomBytes(32));
    const never = () => {
      throw new Error('the kept pair is read, never generated again');
    };
    // A pair kept before a key was configured is sealed on the first call with the key.
    const sealed = createPushSubscriptions(opened.store, { cipher });
    expect(await sealed.vapidKeys(never)).toEqual(plain);
    expect(isSealed(await stored())).toBe(true);
    expect(await stored()).not.toContain(plain.privateKey);
    expect(await sealed.vapidKeys(never)).toEqual(plain);

    await expect(subscriptions.vapidKeys(never)).rejects.toMatchObject({
      code: 'key_required',
      message: `the store's VAPID private key is sealed (key id ${cipher.keyId}); give the key it was sealed with`,
    });
    const other = createSecretCipher(randomBytes(32));
    await expect(
      createPushSubscriptions(opened.store, { cipher: other }).vapidKeys(never),
    ).rejects.toMatchObject({
      code: 'wrong_key',
      message: `the store's VAPID private key is sealed with key id ${cipher.keyId}; the key given (key id ${other.keyId}) does not open it`,
    });
  });

  it('saves a browser through the API with its user agent, lists it, and deletes it', async () => {
    const endpoint = 'https://push.example/ada-laptop';
    const saved = await call('ada', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, {
      endpoint,
      expirationTime: null,
      keys: browserKeys(),
      label: 'Laptop',
    });
    expect(saved.status).toBe(201);
    expect(saved.json.data).toMatchObject({ endpoint, label: 'Laptop', user_agent: 'Test Browser/1.0' });
    expect((await call('ada', 'GET', PUSH_SUBSCRIPTIONS_ROUTE)).json.data).toMatchObject([{ endpoint }]);
    expect((await call('bob', 'GET', PUSH_SUBSCRIPTIONS_ROUTE)).json.data).toEqual([]);
    expect((await call('bob', 'DELETE', PUSH_SUBSCRIPTIONS_ROUTE, { endpoint })).status).toBe(404);
    expect((await call('ada', 'DELETE', PUSH_SUBSCRIPTIONS_ROUTE, { endpoint })).status).toBe(200);
    expect(await subscriptions.listFor({ type: 'User', id: 'ada' })).toEqual([]);
  });

  it('moves an endpoint to the user who saved it last, with the new keys', async () => {
    const endpoint = 'https://push.example/shared';
    const first = browserKeys();
    const second = browserKeys();
    await call('ada', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, { endpoint, keys: first });
    await call('bob', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, { endpoint, keys: second });
    expect(await subscriptions.listFor({ type: 'User', id: 'ada' })).toEqual([]);
    expect(await subscriptions.listFor({ type: 'User', id: 'bob' })).toMatchObject([
      { endpoint, keys: second },
    ]);
    expect(await subscriptions.removeEndpoint(endpoint)).toBe(true);
    expect(await subscriptions.removeEndpoint(endpoint)).toBe(false);
  });

  it('answers the key to a signed-in user only, and refuses writes without the CSRF token', async () => {
    expect(await call('ada', 'GET', PUSH_KEY_ROUTE)).toEqual({
      status: 200,
      json: { data: { public_key: 'the-public-key' } },
    });
    expect((await call(undefined, 'GET', PUSH_KEY_ROUTE)).status).toBe(401);
    const noCsrf = await app.request(PUSH_SUBSCRIPTIONS_ROUTE, {
      method: 'POST',
      headers: { 'x-user': 'ada' },
      body: JSON.stringify({ endpoint: 'https://push.example/x', keys: browserKeys() }),
    });
    expect(noCsrf.status).toBe(403);
  });

  it('names each field at fault: not https, not a P-256 point, a secret of the wrong size', async () => {
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
    const bad = await call('ada', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, {
      endpoint: 'http://push.example/x',
      keys: { p256dh: offCurve, auth: randomBytes(8).toString('base64url') },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error?.issues?.map((issue) => issue.path)).toEqual([
      'endpoint',
      'keys.p256dh',
      'keys.auth',
    ]);
    expect((await call('ada', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, 'not an object')).status).toBe(422);
  });

  it('refuses an endpoint on a host it does not accept with 400, naming the host', async () => {
    const blocked = await call('ada', 'POST', PUSH_SUBSCRIPTIONS_ROUTE, {
      endpoint: 'https://blocked.example/x',
      keys: browserKeys(),
    });
    expect(blocked).toEqual({
      status: 400,
      json: {
        error: {
          code: 'endpoint_not_allowed',
          message: "the endpoint's host blocked.example is not a push service accepted here",
        },
      },
    });
    // Without `endpointAllowed`, only the known push services' hosts are accepted.
    const strict = createPushSubscriptionApi({
      subscriptions,
      publicKey: 'the-public-key',
      authenticate: () => ({ id: 'ada' }),
      csrfToken: () => 'csrf',
    });
    const post = (endpoint: string) =>
      strict.request(PUSH_SUBSCRIPTIONS_ROUTE, {
        method: 'POST',
        headers: { 'x-csrf-token': 'csrf' },
        body: JSON.stringify({ endpoint, keys: browserKeys() }),
      });
    expect((await post('https://push.example/x')).status).toBe(400);
    expect((await post('https://fcm.googleapis.com/fcm/send/ada')).status).toBe(201);
    expect(await subscriptions.removeEndpoint('https://fcm.googleapis.com/fcm/send/ada')).toBe(true);
  });
});
