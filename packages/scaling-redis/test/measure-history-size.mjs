// How long one measure of the Redis history's size takes (what a `/metrics` scrape waits for once per
// `sizeCacheMs`), with CHANNELS channels holding EVENTS events each, on a redis-server and on a three-master Redis
// Cluster the script starts, then again with OTHER unrelated keys beside them (SCAN visits every key). Not a test:
// run it by hand after `pnpm turbo run build --filter @herald/scaling-redis...`:
//
//   node packages/scaling-redis/test/measure-history-size.mjs [CHANNELS=10000] [EVENTS=3] [OTHER=100000]

import { encodeChannelEvent } from '@herald/protocol-core';
import { startRedis, startRedisCluster } from '@herald/test-kit';
import { measureHistorySizes } from '../dist/history/history-size.js';
import { createRedisHistory } from '../dist/history/redis-history.js';
import { createRedisLink } from '../dist/internal/connection.js';

const [channels = 10_000, events = 3, other = 100_000] = process.argv.slice(2).map(Number);
const limits = { maxEvents: 100, maxAgeMs: 600_000 };
const prefix = 'measure:';

async function fill(options) {
  const history = createRedisHistory({ ...options, keyPrefix: prefix });
  await history.ready();
  for (let from = 0; from < channels; from += 500) {
    const batch = [];
    for (let c = from; c < Math.min(channels, from + 500); c += 1) {
      for (let i = 0; i < events; i += 1) {
        const channel = `orders-${c}`;
        batch.push(
          history.append(
            'shop',
            channel,
            (at) => encodeChannelEvent({ event: 'tick', channel, data: JSON.stringify({ i }) }, at),
            limits,
          ),
        );
      }
    }
    await Promise.all(batch);
  }
  await history.close();
}

async function addOther(masters) {
  // Unrelated keys, spread by their own names over the masters: SETs sent to the master that owns each.
  const link = masters.link;
  for (let from = 0; from < other; from += 1000) {
    const batch = [];
    for (let k = from; k < Math.min(other, from + 1000); k += 1) {
      batch.push(link.send(`other:${k}`, ['SET', `other:${k}`, 'x']));
    }
    await Promise.all(batch);
  }
}

/** Microseconds Redis spent on the measure's commands since the last CONFIG RESETSTAT, over every master. */
async function redisMicros(masters) {
  let total = 0;
  for (const master of masters) {
    const info = String(await master.send(['INFO', 'commandstats']));
    for (const command of ['scan', 'eval']) {
      total += Number(info.match(new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`))?.[1] ?? 0);
    }
  }
  return total;
}

async function time(link, label) {
  const runs = [];
  const inRedis = [];
  const cpu = [];
  let sizes;
  const masters = await link.masters();
  for (let run = 0; run < 5; run += 1) {
    for (const master of masters) await master.send(['CONFIG', 'RESETSTAT']);
    const started = performance.now();
    const used = process.cpuUsage();
    sizes = await measureHistorySizes(masters, prefix, { clusterMode: link.clusterMode });
    runs.push(performance.now() - started);
    const spent = process.cpuUsage(used);
    cpu.push((spent.user + spent.system) / 1000);
    inRedis.push((await redisMicros(masters)) / 1000);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[2].toFixed(0);
  const shop = sizes.get('shop');
  console.log(
    `${label}: ${shop?.events} events, ${shop?.bytes} bytes; measure median ${median(runs)} ms ` +
      `(min ${Math.min(...runs).toFixed(0)}, max ${Math.max(...runs).toFixed(0)}), ` +
      `node CPU ${median(cpu)} ms, Redis busy ${median(inRedis)} ms`,
  );
}

const events_ = { error() {}, ready() {}, reconnecting() {} };
for (const layout of ['redis-server', 'three-master Redis Cluster']) {
  const cluster = layout !== 'redis-server';
  const started = cluster ? await startRedisCluster() : await startRedis();
  const options = cluster ? { clusterMode: true, rootNodes: started.rootNodes } : { url: started.url };
  try {
    const filling = performance.now();
    await fill(options);
    console.log(
      `${layout}: ${channels} channels × ${events} events appended in ${(performance.now() - filling).toFixed(0)} ms`,
    );
    const link = createRedisLink(options, events_, { subscriber: false });
    await link.connect();
    await time(link, `${layout}, ${channels} channels`);
    await addOther({ link });
    await time(link, `${layout}, ${channels} channels + ${other} other keys`);
    await link.close();
  } finally {
    await started.stop();
  }
}
