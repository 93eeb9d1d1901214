import { ErrorCode, signChannelAuth } from '@herald/protocol-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createStaticAppStore, isRealtimeServerError, type RealtimeApp } from '../src/index.js';
import { APP, errorCode, RawClient, startServer } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;

const OTHER: RealtimeApp = { id: 'app-2', key: 'other-key', secret: 'other-secret' };

describe('apps changed at run time', () => {
  let started: Started | undefined;
  afterEach(async () => {
    await started?.stop();
    started = undefined;
  });

  it('accepts connections for an added app at once and keeps the other apps’ sockets', async () => {
    started = await startServer();
    const { client: first } = await RawClient.established(started.url());
    await first.subscribe('news');
    const refused = await RawClient.connect(started.url(OTHER.key));
    expect(errorCode(await refused.next('pusher:error'))).toBe(ErrorCode.AppNotFound);

    const changes = started.server.setApps([APP, OTHER]);
    expect(changes).toEqual({ added: ['app-2'], updated: [], disabled: [], removed: [] });
    const { client: second } = await RawClient.established(started.url(OTHER.key));
    expect(await second.isServed()).toBe(true);
    started.server.publish('app-1', { channels: ['news'], event: 'posted', data: '{}' });
    await first.next('posted');
    first.close();
    second.close();
  });

  it('replaces a changed app’s config in place: sockets and channels stay, the new limits apply', async () => {
    started = await startServer({ app: { maxConnections: 1 } });
    const { client } = await RawClient.established(started.url());
    await client.subscribe('news');
    const over = await RawClient.connect(started.url());
    expect(errorCode(await over.next('pusher:error'))).toBe(ErrorCode.OverConnectionQuota);

    expect(started.server.upsertApp({ ...APP, maxConnections: 2 })).toBe('updated');
    expect(started.server.findApp('app-1')?.maxConnections).toBe(2);
    const { client: another } = await RawClient.established(started.url());
    started.server.publish('app-1', { channels: ['news'], event: 'posted', data: '{}' });
    await client.next('posted');
    expect(started.server.upsertApp({ ...APP, maxConnections: 2 })).toBe('unchanged');
    client.close();
    another.close();
  });

  it('closes a disabled app’s sockets with 4003 and a removed app’s with 4001, leaving other apps alone', async () => {
    started = await startServer({ apps: [APP, OTHER] });
    const { client: kept } = await RawClient.established(started.url());
    const { client: disabled } = await RawClient.established(started.url(OTHER.key));

    expect(started.server.setApps([APP, { ...OTHER, enabled: false }]).disabled).toEqual(['app-2']);
    expect((await disabled.closed).code).toBe(ErrorCode.AppDisabled);
    const refused = await RawClient.connect(started.url(OTHER.key));
    expect((await refused.closed).code).toBe(ErrorCode.AppDisabled);

    expect(started.server.setApps([{ ...OTHER, enabled: true }]).removed).toEqual(['app-1']);
    expect((await kept.closed).code).toBe(ErrorCode.AppNotFound);
    const { client: back } = await RawClient.established(started.url(OTHER.key));
    expect(await back.isServed()).toBe(true);
    back.close();
  });

  it('accepts channel auth signed with a previous secret until its grace period ends', async () => {
    started = await startServer();
    started.server.upsertApp({
      ...APP,
      secret: 'new-secret',
      previousSecrets: [{ secret: APP.secret, until: Date.now() + 60_000 }],
    });
    const { client, socketId } = await RawClient.established(started.url());
    const withOld = await client.subscribe('private-old');
    expect(withOld.event).toBe('pusher_internal:subscription_succeeded');
    const auth = signChannelAuth(
      { key: APP.key, secret: 'new-secret' },
      { socketId, channel: 'private-new' },
    );
    expect((await client.subscribeWith({ channel: 'private-new', auth })).event).toBe(
      'pusher_internal:subscription_succeeded',
    );

    started.server.upsertApp({
      ...APP,
      secret: 'new-secret',
      previousSecrets: [{ secret: APP.secret, until: Date.now() - 1 }],
    });
    expect((await client.subscribe('private-late')).event).toBe('pusher:subscription_error');
    client.close();
  });

  it('keeps pinging silent sockets while the app changes more often than the sweep runs', async () => {
    started = await startServer({ app: { activityTimeout: 0.3, pingInterval: 0.5 } });
    const { client } = await RawClient.established(started.url());
    let maxConnections = 100;
    const churn = setInterval(() => {
      maxConnections += 1;
      started?.server.upsertApp({ ...APP, activityTimeout: 0.3, pingInterval: 0.5, maxConnections });
    }, 100);
    try {
      await client.next('pusher:ping', 10_000);
    } finally {
      clearInterval(churn);
    }
    expect(maxConnections).toBeGreaterThan(101);
    client.close();
  });

  it('refuses a list with two apps on one key, changing nothing', async () => {
    started = await startServer();
    const clash = () => started?.server.setApps([APP, { ...OTHER, key: APP.key }]);
    expect(clash).toThrow(/key "app-key"/);
    try {
      clash();
    } catch (error) {
      expect(isRealtimeServerError(error) && error.code).toBe('invalid_options');
    }
    expect(started.server.findApp('app-2')).toBeUndefined();
    expect(() => started?.server.upsertApp({ ...OTHER, key: APP.key })).toThrow(/belongs to app app-1/);
  });

  it('serves the static store’s apps and never reports a change', async () => {
    const store = createStaticAppStore([APP]);
    const seen: unknown[] = [];
    const stop = store.watch((apps) => seen.push(apps));
    expect(await store.load()).toEqual([APP]);
    stop();
    await store.close();
    expect(seen).toEqual([]);
  });
});
