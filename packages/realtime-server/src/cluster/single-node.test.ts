import type { ClusterCachedEvent, ClusterChannelChange, ClusterListener } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import { SingleNode } from './single-node.js';

/** A started single-node adapter and what it told its server. */
async function started() {
  const changes: ClusterChannelChange[] = [];
  const users: Array<[string, boolean]> = [];
  const listener: ClusterListener = {
    deliver: () => {},
    terminate: () => {},
    restart: () => {},
    localState: () => ({ connections: [], subscriptions: [], presence: [] }),
    channelChanged: (change) => changes.push(change),
    userChanged: (_appId, userId, online) => users.push([userId, online]),
  };
  const cache = new Map<string, ClusterCachedEvent>();
  const node = new SingleNode((appId, channel) => cache.get(`${appId}/${channel}`));
  await node.start(listener);
  return { node, changes, users, cache };
}

const alice = { userId: 'alice', userInfo: { name: 'Alice' } };
const bob = { userId: 'bob', userInfo: undefined };
const join = (socketId: string, member: typeof alice | typeof bob, maxMembers = 100) => ({
  appId: '1',
  channel: 'presence-room',
  socketId,
  member,
  maxMembers,
});

describe('SingleNode', () => {
  it('answers at once, without a promise', async () => {
    const { node } = await started();
    expect(node.admitConnection('1', 10)).toBe(true);
    expect(node.joinPresence(join('1.1', alice))).not.toBeInstanceOf(Promise);
    expect(node.channel('1', 'news')).toEqual({ subscriptionCount: 0 });
  });

  it('holds an app to its connection quota and lets a socket in again once one closes', async () => {
    const { node } = await started();
    expect(node.admitConnection('1', 2)).toBe(true);
    expect(node.admitConnection('1', 2)).toBe(true);
    expect(node.admitConnection('1', 2)).toBe(false);
    expect(node.admitConnection('2', 2)).toBe(true);
    node.releaseConnection('1');
    expect(node.connectionCount('1')).toBe(1);
    expect(node.admitConnection('1', 2)).toBe(true);
  });

  it('reports a channel occupied with its first subscriber and vacated with its last, once each', async () => {
    const { node, changes } = await started();
    node.setLocalSubscriptions('1', 'news', 1);
    node.setLocalSubscriptions('1', 'news', 2);
    node.setLocalSubscriptions('1', 'news', 1);
    expect(changes).toEqual([{ type: 'occupied', appId: '1', channel: 'news' }]);
    node.setLocalSubscriptions('1', 'news', 0);
    node.setLocalSubscriptions('1', 'news', 0);
    expect(changes).toEqual([
      { type: 'occupied', appId: '1', channel: 'news' },
      { type: 'vacated', appId: '1', channel: 'news' },
    ]);
    expect(node.channels('1')).toEqual([]);
  });

  it('removes a member only with their last socket, and lists members once however many sockets', async () => {
    const { node } = await started();
    expect(node.joinPresence(join('1.1', alice))).toMatchObject({ accepted: true, added: true });
    expect(node.joinPresence(join('1.2', alice))).toMatchObject({ accepted: true, added: false });
    const withBob = node.joinPresence(join('1.3', bob));
    expect(withBob.snapshot).toEqual({
      ids: ['alice', 'bob'],
      hash: { alice: { name: 'Alice' }, bob: null },
      count: 2,
    });
    expect(node.presenceUsers('1', 'presence-room')).toEqual(['alice', 'bob']);
    expect(node.presenceMembers('1', 'presence-room')).toEqual(withBob.snapshot);
    expect(node.leavePresence('1', 'presence-room', '1.1')).toEqual({ removed: false, userId: 'alice' });
    expect(node.leavePresence('1', 'presence-room', '1.2')).toEqual({ removed: true, userId: 'alice' });
    expect(node.leavePresence('1', 'presence-room', '1.2')).toEqual({ removed: false, userId: undefined });
    expect(node.presenceUsers('1', 'presence-room')).toEqual(['bob']);
    expect(node.presenceMembers('1', 'presence-room')).toEqual({
      ids: ['bob'],
      hash: { bob: null },
      count: 1,
    });
    expect(node.presenceMembers('1', 'presence-empty')).toEqual({ ids: [], hash: {}, count: 0 });
  });

  it('refuses a new member of a full presence channel, but not another socket of a member', async () => {
    const { node } = await started();
    node.joinPresence(join('1.1', alice, 1));
    expect(node.joinPresence(join('1.2', bob, 1))).toMatchObject({ accepted: false, added: false });
    expect(node.joinPresence(join('1.3', alice, 1))).toMatchObject({ accepted: true, added: false });
  });

  it('counts subscribers and members of a presence channel, as the REST API reports them', async () => {
    const { node } = await started();
    node.setLocalSubscriptions('1', 'presence-room', 2);
    node.joinPresence(join('1.1', alice));
    node.joinPresence(join('1.2', alice));
    expect(node.channel('1', 'presence-room')).toEqual({ subscriptionCount: 2, userCount: 1 });
    expect(node.channels('1', 'presence-')).toEqual([
      { name: 'presence-room', subscriptionCount: 2, userCount: 1 },
    ]);
  });

  it('tells the server when a user comes online and goes offline, and who of a watchlist is online', async () => {
    const { node, users } = await started();
    node.setLocalUser('1', 'alice', true);
    expect(node.onlineUsers('1', ['alice', 'bob'])).toEqual(['alice']);
    node.setLocalUser('1', 'alice', false);
    expect(users).toEqual([
      ['alice', true],
      ['alice', false],
    ]);
    expect(node.onlineUsers('1', ['alice'])).toEqual([]);
  });

  it("answers a cache channel's last event from the server's own copy", async () => {
    const { node, cache } = await started();
    const event = { event: 'price', data: '1', frame: '{}' };
    node.storeCachedEvent('1', 'cache-prices', event, 60_000);
    expect(node.cachedEvent('1', 'cache-prices')).toBeUndefined();
    cache.set('1/cache-prices', { ...event, ttlMs: 60_000 });
    expect(node.cachedEvent('1', 'cache-prices')).toEqual({ ...event, ttlMs: 60_000 });
  });

  it('forgets everything once stopped, and tells nobody', async () => {
    const { node, changes } = await started();
    node.admitConnection('1', 1);
    node.setLocalSubscriptions('1', 'news', 1);
    await node.stop();
    expect(node.connectionCount('1')).toBe(0);
    expect(node.channels('1')).toEqual([]);
    expect(changes).toHaveLength(1);
  });
});
