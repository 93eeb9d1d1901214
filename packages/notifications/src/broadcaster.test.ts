import { verifyRequest } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import { createBroadcaster, notificationChannelName } from './broadcaster.js';
import { isNotificationError } from './errors.js';

const APP = { appId: 'app-1', key: 'the-key', secret: 'the-secret' };

function fakeFetch(status = 200) {
  const calls: Array<{ url: URL; body: string }> = [];
  const impl = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: new URL(String(input)), body: String(init?.body) });
    return new Response(status === 200 ? '{}' : 'nope', { status });
  };
  return { calls, fetch: impl as typeof fetch };
}

describe('createBroadcaster', () => {
  it('names a notifiable private channel by type and id', () => {
    expect(notificationChannelName({ type: 'User', id: '42' })).toBe('private-User.42');
  });

  it('sends a signed POST /apps/{id}/events that the server-side check accepts', async () => {
    const fake = fakeFetch();
    const broadcaster = createBroadcaster({
      ...APP,
      url: 'http://rt.example:8080/ws-prefix/',
      fetch: fake.fetch,
    });
    await broadcaster.publishChange(
      { type: 'User', id: '42' },
      { event: 'notification.marked-read', data: { notification_id: 'n1', unread_count: 3 } },
    );
    const call = fake.calls[0];
    expect(call?.url.pathname).toBe('/ws-prefix/apps/app-1/events');
    expect(JSON.parse(call?.body ?? '')).toEqual({
      name: 'notification.marked-read',
      channels: ['private-User.42'],
      data: JSON.stringify({ notification_id: 'n1', unread_count: 3 }),
    });
    const verdict = verifyRequest(
      { key: APP.key, secret: APP.secret },
      {
        method: 'POST',
        path: call?.url.pathname ?? '',
        query: Object.fromEntries(call?.url.searchParams ?? []),
        body: call?.body ?? '',
      },
    );
    expect(verdict.ok).toBe(true);
  });

  it('turns a refusal into a send_failed error carrying the status', async () => {
    const broadcaster = createBroadcaster({ ...APP, url: 'http://rt.example', fetch: fakeFetch(401).fetch });
    const error = await broadcaster.publish(['private-User.1'], 'x', {}).catch((e: unknown) => e);
    expect(isNotificationError(error) && error.code).toBe('send_failed');
    expect((error as Error).message).toBe('the real-time server answered 401: nope');
  });
});
