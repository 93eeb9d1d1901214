import { describe, expect, it } from 'vitest';
import { apiBase, createNotificationClient } from './client.js';
import { isBellError } from './errors.js';

function recordingFetch(answer: (url: string, init: RequestInit) => Response) {
  const calls: Array<{ url: string; method: string; headers: Record<string, string> }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url, method: init.method ?? 'GET', headers: init.headers as Record<string, string> });
    return answer(url, init);
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

describe('createNotificationClient', () => {
  it('derives every route from the list URL and sends the CSRF token on writes only', async () => {
    const { fetch, calls } = recordingFetch(() => Response.json({ data: [], meta: { unread_count: 3 } }));
    const client = createNotificationClient({
      apiUrl: '/notification/notifications/unread.json',
      fetch,
      csrfToken: () => 'tok',
    });
    expect(await client.list(2, 10)).toEqual({ records: [], hasNextPage: false, unreadCount: 3 });
    await client.markRead('a b');
    await client.markAllRead();
    await client.remove('x');
    expect(calls.map((call) => `${call.method} ${call.url} ${call.headers['X-CSRF-Token'] ?? '-'}`)).toEqual([
      'GET /notification/notifications/unread.json?page=2&limit=10 -',
      'PATCH /notification/notifications/a%20b/read.json tok',
      'PATCH /notification/notifications/mark-all-read.json tok',
      'DELETE /notification/notifications/x.json tok',
    ]);
    expect(apiBase('https://x.test/api/notifications.json')).toBe('https://x.test/api/notifications');
  });

  it('turns an error answer into a BellError with the server’s words', async () => {
    const { fetch } = recordingFetch(() =>
      Response.json({ error: { code: 'csrf_token_mismatch', message: 'send the token' } }, { status: 403 }),
    );
    const client = createNotificationClient({
      apiUrl: '/n/notifications.json',
      fetch,
      csrfToken: () => undefined,
    });
    const error = await client.markAllRead().catch((caught: unknown) => caught);
    expect(isBellError(error) && error).toMatchObject({
      code: 'forbidden',
      status: 403,
      message: 'Could not mark all as read: send the token.',
    });
  });

  it('says so when the server cannot be reached', async () => {
    const fetch = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof globalThis.fetch;
    const client = createNotificationClient({ apiUrl: '/n/notifications.json', fetch });
    await expect(client.list(1, 10)).rejects.toThrow(
      'Could not load notifications: the server could not be reached.',
    );
  });

  it('sends a host-signed token on every request instead of the CSRF token, asking a function each time', async () => {
    const { fetch, calls } = recordingFetch(() => Response.json({ data: [], meta: { unread_count: 0 } }));
    let issued = 0;
    const client = createNotificationClient({
      apiUrl: 'https://notify.example.com/notification/notifications/unread.json',
      fetch,
      authToken: async () => `jwt-${++issued}`,
      csrfToken: () => 'tok',
    });
    await client.list(1, 5, 'all');
    await client.list(1, 5, 'unread');
    await client.markRead('a');
    expect(calls.map((call) => `${call.method} ${call.url} ${call.headers.authorization}`)).toEqual([
      'GET https://notify.example.com/notification/notifications.json?page=1&limit=5 Bearer jwt-1',
      'GET https://notify.example.com/notification/notifications/unread.json?page=1&limit=5 Bearer jwt-2',
      'PATCH https://notify.example.com/notification/notifications/a/read.json Bearer jwt-3',
    ]);
    expect(calls.every((call) => call.headers['X-CSRF-Token'] === undefined)).toBe(true);
  });

  it('sends cookies as asked, and says so when the token cannot be had', async () => {
    const modes: Array<RequestCredentials | undefined> = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      modes.push(init.credentials);
      return Response.json({ data: [] });
    }) as unknown as typeof globalThis.fetch;
    await createNotificationClient({ apiUrl: '/n/notifications.json', fetch, credentials: 'include' }).list(
      1,
      1,
    );
    expect(modes).toEqual(['include']);
    const failing = createNotificationClient({
      apiUrl: '/n/notifications.json',
      fetch,
      authToken: () => Promise.reject(new Error('signed out')),
    });
    const error = await failing.markAllRead().catch((caught: unknown) => caught);
    expect(isBellError(error) && error).toMatchObject({
      code: 'unauthenticated',
      message: 'Could not mark all as read: the sign-in token could not be had.',
    });
    expect(modes).toHaveLength(1);
  });
});
