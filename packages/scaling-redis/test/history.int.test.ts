import { randomBytes } from 'node:crypto';
import { encodeChannelEvent, type HistoryPosition } from '@herald/protocol-core';
import { sleep, until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisHistory,
  type RedisChannelHistory,
  type RedisHistoryOptions,
} from '../src/history/redis-history.js';
import { hashSlot } from '../src/internal/slot.js';
import { useRedisLayouts } from './redis-layouts.js';

// The Redis history on a redis-server and on a three-master Redis Cluster of the test's own: two stores stand for two
// nodes sharing one Redis.

const redis = useRedisLayouts();
const limits = { maxEvents: 5, maxAgeMs: 60_000 };

const opened: RedisChannelHistory[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((history) => history.close()));
});

const frameOf = (channel: string, i: number, at: HistoryPosition) =>
  encodeChannelEvent({ event: 'tick', channel, data: JSON.stringify({ i }) }, at);

/**
 * `count` channel names of `appId` whose history keys fall in successive equal shares of the slots: on a three-master
 * Redis Cluster made by `redis-cli --cluster create`, three of them live on three masters.
 */
function spreadChannels(appId: string, count: number): string[] {
  const names: string[] = [];
  for (let i = 0; names.length < count; i += 1) {
    const share = Math.floor((hashSlot(`{hist:${appId}:c${i}}`) * count) / 16384);
    if (share === names.length) names.push(`c${i}`);
  }
  return names;
}

describe.each(redis.servers)('createRedisHistory on $name', ({ server }) => {
  async function nodes(count: number, options: RedisHistoryOptions = {}) {
    const keyPrefix = `hist-${randomBytes(4).toString('hex')}:`;
    const made: RedisChannelHistory[] = [];
    for (let i = 0; i < count; i += 1) {
      const history = createRedisHistory({ ...server(), keyPrefix, ...options });
      opened.push(history);
      await history.ready();
      made.push(history);
    }
    return { made, keyPrefix };
  }

  /** Appends events `from..to` (data `{i}`) through the given nodes in turn; answers the frames fanned out. */
  async function publish(
    on: RedisChannelHistory[],
    channel: string,
    from: number,
    to: number,
    bounds = limits,
  ) {
    const frames: string[] = [];
    for (let i = from; i <= to; i += 1) {
      const node = on[i % on.length] as RedisChannelHistory;
      frames.push(await node.append('app', channel, (at) => frameOf(channel, i, at), bounds));
    }
    return frames;
  }

  it('numbers a channel’s events once for every node, and any node replays them', async () => {
    const { made } = await nodes(2);
    const [a, b] = made as [RedisChannelHistory, RedisChannelHistory];
    const start = await a.position('app', 'orders', limits);
    expect(start.serial).toBe(0);
    const frames = await publish(made, 'orders', 1, 4);
    const positions = frames.map(
      (frame) => JSON.parse(frame) as { herald_serial: number; herald_epoch: string },
    );
    expect(positions.map((each) => each.herald_serial)).toEqual([1, 2, 3, 4]);
    expect(new Set(positions.map((each) => each.herald_epoch))).toEqual(new Set([start.epoch]));
    expect(await b.read('app', 'orders', { serial: 1, epoch: start.epoch }, limits)).toEqual({
      ok: true,
      frames: frames.slice(1),
    });
    expect(await a.read('app', 'orders', start, limits)).toEqual({ ok: true, frames });
    expect(await a.position('app', 'other', limits)).toMatchObject({ serial: 0 });
  });

  it('keeps the last max events and tells an older position trimmed, with the first serial held', async () => {
    const { made } = await nodes(2);
    const frames = await publish(made, 'orders', 1, 8);
    const { epoch } = await (made[0] as RedisChannelHistory).position('app', 'orders', limits);
    const b = made[1] as RedisChannelHistory;
    expect(await b.read('app', 'orders', { serial: 3, epoch }, limits)).toEqual({
      ok: true,
      frames: frames.slice(3),
    });
    expect(await b.read('app', 'orders', { serial: 2, epoch }, limits)).toEqual({
      ok: false,
      failure: { reason: 'trimmed', firstSerial: 4 },
      position: { serial: 8, epoch },
    });
  });

  it('drops events past the channel’s byte cap as trimmed', async () => {
    const { made } = await nodes(1, { maxBytesPerChannel: 300 });
    const node = made[0] as RedisChannelHistory;
    const frames = await publish(made, 'orders', 1, 6, { maxEvents: 100, maxAgeMs: 60_000 });
    const bytes = Buffer.byteLength(frames[0] as string);
    const held = Math.floor(300 / bytes);
    const { epoch } = await node.position('app', 'orders', limits);
    expect(await node.read('app', 'orders', { serial: 0, epoch }, limits)).toMatchObject({
      ok: false,
      failure: { reason: 'trimmed', firstSerial: 6 - held + 1 },
    });
  });

  it('tells events older than the maximum age expired', async () => {
    const { made } = await nodes(1);
    const node = made[0] as RedisChannelHistory;
    const bounds = { maxEvents: 100, maxAgeMs: 300 };
    await publish(made, 'orders', 1, 2, bounds);
    const { epoch } = await node.position('app', 'orders', bounds);
    // Longer than the maximum age: the condition under test is the age itself.
    await sleep(500);
    expect(await node.read('app', 'orders', { serial: 1, epoch }, bounds)).toEqual({
      ok: false,
      failure: { reason: 'expired', firstSerial: null },
      position: { serial: 2, epoch },
    });
    const [third] = await publish(made, 'orders', 3, 3, bounds);
    expect(await node.read('app', 'orders', { serial: 2, epoch }, bounds)).toEqual({
      ok: true,
      frames: [third],
    });
  });

  it('tells a position restarted once Redis lost the channel, and numbers from 1 in a new epoch', async () => {
    const { made, keyPrefix } = await nodes(2);
    const [a, b] = made as [RedisChannelHistory, RedisChannelHistory];
    await publish(made, 'orders', 1, 3);
    const before = await a.position('app', 'orders', limits);
    // What a flushed or replaced Redis leaves: neither the channel's counter nor its stream.
    await dropChannel(keyPrefix, 'orders');
    const read = await b.read('app', 'orders', before, limits);
    expect(read).toMatchObject({ ok: false, failure: { reason: 'restarted', firstSerial: null } });
    const after = read.ok ? before : read.position;
    expect(after.serial).toBe(0);
    expect(after.epoch).not.toBe(before.epoch);
    const [first] = await publish(made, 'orders', 4, 4);
    expect(JSON.parse(first as string)).toMatchObject({ herald_serial: 1, herald_epoch: after.epoch });
    expect(await a.read('app', 'orders', { serial: 2, epoch: after.epoch }, limits)).toMatchObject({
      ok: false,
      failure: { reason: 'restarted' },
    });
  });

  it('lists kept events after a serial, oldest first, a page at a time', async () => {
    const { made } = await nodes(1);
    const node = made[0] as RedisChannelHistory;
    const frames = await publish(made, 'orders', 1, 7);
    const { epoch } = await node.position('app', 'orders', limits);
    expect(await node.list('app', 'orders', { afterSerial: 0, limit: 2 }, limits)).toEqual({
      position: { serial: 7, epoch },
      firstSerial: 3,
      frames: frames.slice(2, 4),
    });
    expect(await node.list('app', 'orders', { afterSerial: 5, limit: 10 }, limits)).toMatchObject({
      frames: frames.slice(5),
    });
    expect(await node.list('app', 'empty', { afterSerial: 0, limit: 10 }, limits)).toMatchObject({
      position: { serial: 0 },
      firstSerial: null,
      frames: [],
    });
  });

  it('measures each app’s events and bytes held across nodes and every master, trimmed ones left out', async () => {
    const { made } = await nodes(2, { sizeCacheMs: 0 });
    const [a, b] = made as [RedisChannelHistory, RedisChannelHistory];
    // One channel in each third of the slots: on the Redis Cluster, one on each master.
    const channels = spreadChannels('app', 3);
    const held: string[] = [];
    for (const [n, channel] of channels.entries()) {
      // 8 events on the first channel (5 kept), 2 and 3 on the others: published through both nodes.
      const frames = await publish(made, channel, 1, [8, 2, 3][n] as number);
      held.push(...frames.slice(-limits.maxEvents));
    }
    const blog = await b.append('blog', 'news', (at) => frameOf('news', 1, at), limits);
    const expected = {
      events: 5 + 2 + 3,
      bytes: held.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0),
    };
    // The first measure may outlast a call's wait on a busy machine: then the call answers nothing yet.
    await until(async () => (await a.size('app')) !== undefined, { what: 'a first measure' });
    expect(await a.size('app')).toEqual(expected);
    expect(await b.size('app')).toEqual(expected);
    expect(await a.size('blog')).toEqual({ events: 1, bytes: Buffer.byteLength(blog) });
    expect(await a.size('none')).toEqual({ events: 0, bytes: 0 });
  });

  it('counts a channel whose events all expired as holding nothing, and then only what came after', async () => {
    const { made } = await nodes(1, { sizeCacheMs: 0 });
    const node = made[0] as RedisChannelHistory;
    const bounds = { maxEvents: 100, maxAgeMs: 300 };
    await publish(made, 'orders', 1, 2, bounds);
    const { epoch } = await node.position('app', 'orders', bounds);
    // Longer than the maximum age: the stream runs out by its expiry, with no read to trim it.
    await sleep(500);
    await until(async () => (await node.size('app')) !== undefined, { what: 'a first measure' });
    expect(await node.size('app')).toEqual({ events: 0, bytes: 0 });
    const [third] = await publish(made, 'orders', 3, 3, bounds);
    expect(await node.size('app')).toEqual({ events: 1, bytes: Buffer.byteLength(third as string) });
    // What a reader from before the gap is told: the events it missed aged out.
    expect(await node.read('app', 'orders', { serial: 1, epoch }, bounds)).toEqual({
      ok: false,
      failure: { reason: 'expired', firstSerial: 3 },
      position: { serial: 3, epoch },
    });
  });

  /** Deletes a channel's keys through a store-independent client of the same Redis. */
  async function dropChannel(keyPrefix: string, channel: string): Promise<void> {
    const { createClient, createCluster } = await import('redis');
    const options = server();
    const tag = `${keyPrefix}{hist:app:${channel}}`;
    if (options.clusterMode) {
      const cluster = createCluster({
        rootNodes: (options.rootNodes ?? []).map((url) => ({ url: String(url) })),
      });
      await cluster.connect();
      await cluster.del([`${tag}:m`, `${tag}:s`]);
      await cluster.close();
    } else {
      const client = createClient({ url: options.url });
      await client.connect();
      await client.del([`${tag}:m`, `${tag}:s`]);
      await client.close();
    }
  }
});
