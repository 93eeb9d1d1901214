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
});
