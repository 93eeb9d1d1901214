import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNotificationApi,
  createUserTokenVerifier,
  type NewNotificationRecord,
  signUserToken,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

const SECRET = 'user-token-secret-for-the-api-test!!';

function seed(user: string, count: number): NewNotificationRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    type: 'Seeded',
    notifiable_type: 'User',
    notifiable_id: user,
    data: { title: `${user} #${i}`, message: 'm' },
  }));
}

describe.each(STORES)('the JSON API with user tokens on $driver', ({ open }) => {
  let opened: TestStore;
  let app: ReturnType<typeof createNotificationApi>;
  const alice = seed('alice', 3);
  const bob = seed('bob', 3);
  let aliceToken: string;

  beforeAll(async () => {
    opened = await open();
    await opened.store.insertMany([...alice, ...bob]);
    app = createNotificationApi({
      store: opened.store,
      userTokens: await createUserTokenVerifier({ secret: SECRET }),
      // The host's cookie session, standing in as a header: Bob is signed in that way.
      authenticate: (c) => (c.req.header('x-session') === 'bob' ? { id: 'bob' } : undefined),
      csrfToken: () => 'bob-csrf',
    });
    aliceToken = await signUserToken({ secret: SECRET, userId: 'alice', expiresIn: '5m' });
  });
  afterAll(() => opened.dispose());

  const call = async (method: string, path: string, headers: Record<string, string>) => {
    const response = await app.request(`/notification/notifications${path}`, { method, headers });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const asAlice = (method: string, path: string) =>
    call(method, path, { authorization: `Bearer ${aliceToken}` });
  const bobUnread = () => opened.store.unreadCount({ type: 'User', id: 'bob' });
  const bobCount = async () =>
    (await opened.store.list({ type: 'User', id: 'bob' }, { page: 1, limit: 10 })).total;

  it('lists only the token’s user’s notifications', async () => {
    const list = await asAlice('GET', '.json');
    expect(list.status).toBe(200);
    const ids = (list.json.data as Array<{ id: string; notifiable_id: string }>).map((r) => r.notifiable_id);
    expect(ids).toEqual(['alice', 'alice', 'alice']);
  });

  it('never reads, marks or deletes another user’s notification', async () => {
    const target = bob[0]?.id as string;
    expect((await asAlice('GET', `/${target}.json`)).status).toBe(404);
    expect((await asAlice('PATCH', `/${target}/read.json`)).status).toBe(404);
    expect((await asAlice('DELETE', `/${target}.json`)).status).toBe(404);
    expect((await asAlice('PATCH', '/mark-all-read.json')).status).toBe(200);
    expect(await bobUnread()).toBe(3);
    expect((await asAlice('DELETE', '.json')).status).toBe(200);
    expect(await bobCount()).toBe(3);
    expect((await asAlice('GET', '.json')).json.data).toEqual([]);
  });

  it('takes token-authenticated writes without a CSRF token, and still asks sessions for one', async () => {
    const own = seed('alice', 1);
    await opened.store.insertMany(own);
    const read = await asAlice('PATCH', `/${own[0]?.id}/read.json`);
    expect(read.status).toBe(200);
    expect(read.json.meta).toMatchObject({ changed: true });

    const target = bob[1]?.id as string;
    expect((await call('PATCH', `/${target}/read.json`, { 'x-session': 'bob' })).status).toBe(403);
    const withCsrf = await call('PATCH', `/${target}/read.json`, {
      'x-session': 'bob',
      'x-csrf-token': 'bob-csrf',
    });
    expect(withCsrf.status).toBe(200);
  });

  it('refuses a bad, expired or foreign token with 401 even beside a valid session', async () => {
    const expired = await signUserToken({ secret: SECRET, userId: 'alice', expiresIn: -120 });
    const foreign = await signUserToken({ secret: `${SECRET}-other`, userId: 'alice' });
    const otherAudience = await signUserToken({
      secret: SECRET,
      userId: 'alice',
      audience: 'another-service',
    });
    for (const token of [expired, foreign, otherAudience, 'garbage']) {
      const answer = await call('GET', '.json', { authorization: `Bearer ${token}`, 'x-session': 'bob' });
      expect(answer.status).toBe(401);
      expect(answer.json.error).toMatchObject({ code: 'unauthenticated' });
    }
  });
});
