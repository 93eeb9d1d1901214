#!/usr/bin/env node
// Cluster benchmark: several server processes on one redis-server this script starts itself (or a three-master Redis
// Cluster), each node's clients subscribed to their own share of the channels, signed REST triggers spread over every
// node and every channel. Per node it prints what arrives from Redis (messages and bytes per second) and the
// deliveries per second to its sockets, so routing to every node can be told from routing by interest.
//
//   node bench/cluster.mjs                                  # herald (broadcast), herald (interest), soketi; 3 nodes
//   node bench/cluster.mjs --redis-cluster                  # the same on a three-master Redis Cluster
//   node bench/cluster.mjs --layout workers --workers 1,2   # one `realtime server --workers N` per run, one port
//
// Every run is bounded (--seconds of traffic, start-up limits) and stops every process it started.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nowMicros } from './lib/histogram.mjs';
import { LoadPool, Publisher } from './lib/load.mjs';
import {
  APP,
  ensureSoketi,
  fileLimit,
  freePort,
  hasTaskset,
  heraldConfig,
  readCpuSeconds,
  reexecPinned,
  soketiEnv,
  waitForPort,
  workDir,
} from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    layout: { type: 'string', default: 'cluster' },
    targets: { type: 'string' },
    nodes: { type: 'string', default: '3' },
    workers: { type: 'string', default: '1,2' },
    processes: { type: 'string', default: '4' },
    subscribers: { type: 'string', default: '300' },
    channels: { type: 'string', default: '30' },
    rate: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    'redis-cluster': { type: 'boolean', default: false },
    'server-cpu': { type: 'string' },
    'load-cpu': { type: 'string', default: '1' },
    out: { type: 'string' },
    // Herald's transport and Node binary, as in run.mjs (soketi stays on this Node).
    transport: { type: 'string', default: 'auto' },
    node: { type: 'string' },
  },
});

const rootDir = fileURLToPath(new URL('..', import.meta.url));
const layout = values.layout;
if (layout !== 'cluster' && layout !== 'workers')
  throw new Error(`--layout is cluster or workers, not ${layout}`);
if (!['auto', 'uws', 'portable'].includes(values.transport))
  throw new Error(`--transport is auto, uws or portable, not ${values.transport}`);

// The load runs pinned to its core, as in run.mjs (re-executed under taskset with the open-files limit raised).
reexecPinned(import.meta.url, values['load-cpu']);

const log = (message) => console.error(`[cluster] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);
const workerCounts = values.workers.split(',').map(Number);
const targets = values.targets
  ? values.targets.split(',')
  : layout === 'cluster'
    ? ['herald-broadcast', 'herald-interest', 'soketi']
    : workerCounts.map((n) => `herald-w${n}`);
const nodeCount = Number(values.nodes);
const seconds = Number(values.seconds);
const subscribers = Number(values.subscribers);
const channelsPer = Number(values.channels);
// The cluster layout publishes at a fixed rate (Redis traffic per publish is the point); the workers layout as fast
// as the deliveries keep up (throughput is the point).
const rate = Number(values.rate ?? (layout === 'cluster' ? 1000 : 0));
// Servers: every node on core 0 in the cluster layout (the load on core 1); workers are left to the scheduler
// (pinning them to one core would hide what a second process brings).
const serverCpu = values['server-cpu'] ?? (layout === 'cluster' ? '0' : '');
const logDir = `${workDir}/logs`;
mkdirSync(logDir, { recursive: true });
if (targets.includes('soketi')) ensureSoketi(log);

/** Everything started, so an error or Ctrl-C still stops it. */
const started = new Set();
async function stopAll() {
  await Promise.all([...started].map((item) => item.stop()));
}
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));

function spawnLogged(args, { env, cwd, label, cpu }) {
  const pin = hasTaskset && cpu ? `taskset -c ${cpu} ` : '';
  const quoted = args.map((arg) => `'${String(arg).replaceAll("'", "'\\''")}'`).join(' ');
  const logFile = `${logDir}/${label}.log`;
  // A previous run's log must not be read as this one's start-up.
  rmSync(logFile, { force: true });
  const child = spawn('bash', ['-c', `ulimit -n ${fileLimit()} && exec ${pin}${quoted} >'${logFile}' 2>&1`], {
    cwd: cwd ?? rootDir,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const handle = {
    child,
    pid: child.pid,
    logFile,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(timer);
      }
      started.delete(handle);
    },
  };
  started.add(handle);
  return handle;
}

async function waitFor(check, what, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const logText = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Redis: one redis-server, or three masters joined into a Redis Cluster.

async function startRedis(clusterMode) {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-redis-'));
  const ports = [];
  const count = clusterMode ? 3 : 1;
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const extra = clusterMode
      ? [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '5000',
        ]
      : [];
    const server = spawnLogged(
      ['redis-server', '--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
      { cwd: dir, label: `cluster-redis-${port}` },
    );
    ports.push(port);
    await waitFor(
      () =>
        spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG',
      `redis-server on ${port}`,
      20_000,
    ).catch((error) => {
      throw new Error(`${error.message} (log: ${server.logFile})`);
    });
  }
  if (clusterMode) {
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8' },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await waitFor(
      () =>
        ports.every((p) =>
          spawnSync('redis-cli', ['-p', String(p), 'cluster', 'info'], { encoding: 'utf8' }).stdout.includes(
            'cluster_state:ok',
          ),
        ),
      'the Redis Cluster to settle',
      30_000,
    );
  }
  return { ports, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Bytes each process has received from the given Redis ports, from the kernel's TCP counters (`ss -tinp`,
 * tcpi_bytes_received of every connection to those ports): the same measure for every server, whatever its client.
 */
function redisBytesByPid(redisPorts) {
  // Filtered by the kernel to connections towards Redis: the machine may hold tens of thousands of other sockets.
  const filter = `( ${redisPorts.map((port) => `dport = :${port}`).join(' or ')} )`;
  const out = spawnSync('ss', ['-tinpH', filter], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }).stdout.split(
    '\n',
  );
  const bytes = new Map();
  for (let i = 0; i < out.length; i++) {
    const line = out[i];
    const peer = /\s127\.0\.0\.1:\d+\s+127\.0\.0\.1:(\d+)\s+users:\(\("[^"]*",pid=(\d+)/.exec(line);
    if (!peer || !redisPorts.includes(Number(peer[1]))) continue;
    const received = /bytes_received:(\d+)/.exec(out[i + 1] ?? '');
    const pid = Number(peer[2]);
    bytes.set(pid, (bytes.get(pid) ?? 0) + Number(received?.[1] ?? 0));
  }
  return bytes;
}

/**
 * Cluster messages a Herald node counted as received from Redis: the adapter's own counter when it has one
 * (`herald_cluster_messages_received_total`), else the sum of `herald_cluster_messages_total{direction="in"}`.
 */
async function heraldClusterCounters(port) {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const sum = (pattern) => {
      let total = 0;
      let found = false;
      for (const line of text.split('\n')) {
        if (!pattern.test(line)) continue;
        found = true;
        total += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return found ? total : undefined;
    };
    return {
      messages:
        sum(/^herald_cluster_messages_received_total(\{| )/) ??
        sum(/^herald_cluster_messages_total\{[^}]*direction="in"/),
      bytes: sum(/^herald_cluster_bytes_received_total(\{| )/),
    };
  } catch {
    return { messages: undefined, bytes: undefined };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Servers.

function scalingOf(redis, prefix) {
  return redis.ports.length > 1
    ? { enabled: true, prefix, cluster_mode: true, nodes: redis.ports.map((p) => `127.0.0.1:${p}`) }
    : { enabled: true, prefix, server: { url: `redis://127.0.0.1:${redis.ports[0]}` } };
}

/** Starts one Herald node (or one `--workers N` parent) on the bench's Redis. */
async function startHerald({ redis, label, routing, nodeId, workers, prefix }) {
  const port = await freePort();
  const config = heraldConfig(port);
  config.scaling = { ...scalingOf(redis, prefix), ...(nodeId ? { node_id: nodeId } : {}) };
  if (workers) config.servers.herald.workers = workers;
  const configFile = `${workDir}/${label}.json`;
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const bin = `${rootDir}apps/realtime/dist/bin.js`;
  const handle = spawnLogged(
    [
      values.node ?? process.execPath,
      bin,
      'server',
      '--host',
      '127.0.0.1',
      '--port',
      port,
      '--config',
      configFile,
    ],
    {
      label,
      cpu: serverCpu,
      env: {
        NODE_ENV: 'production',
        REALTIME_TRANSPORT: values.transport,
        ...(routing ? { REALTIME_SCALING_ROUTING: routing } : {}),
      },
    },
  );
  await waitFor(() => {
    if (handle.child.exitCode !== null) throw new Error(`${label} exited (log: ${handle.logFile})`);
    return logText(handle.logFile).includes('REST API');
  }, `${label} to start (log: ${handle.logFile})`);
  // With workers, the sockets and Redis connections are the children's.
  const pids = workers > 1 ? childrenOf(handle.pid) : [handle.pid];
  return { ...handle, port, pids, herald: true };
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Starts one soketi 1.6.1 node with its Redis adapter. */
async function startSoketi({ redis, label, prefix }) {
  const bin = ensureSoketi(log);
  const port = await freePort();
  const cluster = redis.ports.length > 1;
  const env = {
    ...soketiEnv(port),
    SOKETI_ADAPTER_DRIVER: 'redis',
    SOKETI_ADAPTER_REDIS_PREFIX: prefix,
    SOKETI_DB_REDIS_HOST: '127.0.0.1',
    SOKETI_DB_REDIS_PORT: String(redis.ports[0]),
    ...(cluster
      ? {
          SOKETI_ADAPTER_REDIS_CLUSTER_MODE: 'true',
          // soketi parses each variable as JSON when it can: ioredis' list of cluster nodes.
          SOKETI_DB_REDIS_CLUSTER_NODES: JSON.stringify(
            redis.ports.map((p) => ({ host: '127.0.0.1', port: p })),
          ),
        }
      : {}),
  };
  const handle = spawnLogged([process.execPath, bin, 'start'], {
    label,
    cpu: serverCpu,
    env,
    cwd: `${workDir}/soketi`,
  });
  await waitForPort(port, handle.child, 30_000);
  return { ...handle, port, pids: [handle.pid], herald: false };
}

// ---------------------------------------------------------------------------------------------------------------
// One run: start Redis and the nodes, connect, publish for `seconds`, measure, stop everything.

async function runTarget(name) {
  const redis = await startRedis(values['redis-cluster']);
  const prefix = `bench${Date.now().toString(36)}:`;
  const nodes = [];
  try {
    if (layout === 'workers') {
      const workers = Number(/^herald-w(\d+)$/.exec(name)?.[1]);
      if (!workers) throw new Error(`unknown target ${name} (herald-w<N>)`);
      nodes.push(await startHerald({ redis, label: `cluster-${name}`, workers, prefix }));
    } else {
      for (let k = 0; k < nodeCount; k++) {
        const label = `cluster-${name}-n${k}`;
        if (name === 'soketi') nodes.push(await startSoketi({ redis, label, prefix }));
        else if (name === 'herald-broadcast' || name === 'herald-interest')
          nodes.push(
            await startHerald({
              redis,
              label,
              routing: name.slice('herald-'.length),
              nodeId: `n${k}`,
              prefix,
            }),
          );
        else throw new Error(`unknown target ${name}`);
      }
    }
    return await measure(name, nodes, redis);
  } finally {
    for (const node of nodes) await node.stop();
    for (const item of [...started]) await item.stop();
    redis.cleanup();
  }
}

async function measure(name, nodes, redis) {
  // One load process per node in the cluster layout (its deliveries are that node's); in the workers layout every
  // load process connects to the one port and the kernel spreads the sockets over the workers.
  const processes = layout === 'cluster' ? nodes.length : Number(values.processes);
  const urlOf = (i) =>
    `ws://127.0.0.1:${nodes[i % nodes.length].port}/app/${APP.key}?protocol=7&client=bench&version=1`;
  const pool = await LoadPool.open(
    processes,
    (i) => ({
      role: 'subscribe',
      url: urlOf(i),
      count: subscribers,
      channel: `c${i}-`,
      channelModulo: channelsPer,
      offset: 0,
      concurrency: 64,
    }),
    { log, timeoutMs: 120_000 },
  );
  if (pool.failed > 0) log(`${name}: ${pool.failed} sockets failed to subscribe`);
  const perChannel = subscribers / channelsPer;
  const publishers = nodes.map((node) => new Publisher(node.port, 4));
  const pids = nodes.flatMap((node) => node.pids);
  await pool.start();
  // Let every node settle its subscriptions (interest routing subscribes per channel) before the window opens.
  await sleep(500);
  const bytes0 = redisBytesByPid(redis.ports);
  const cpu0 = pids.map(readCpuSeconds);
  const counters0 = await Promise.all(
    nodes.map((node) => (node.herald ? heraldClusterCounters(node.port) : {})),
  );
  const progress0 = [...pool.progress];
  let published = 0;
  let running = true;
  const window = 20_000;
  const t0 = performance.now();
  const lane = async () => {
    while (running) {
      const elapsed = (performance.now() - t0) / 1000;
      if (rate > 0 && published >= rate * elapsed) {
        await sleep(2);
        continue;
      }
      const sent = published - publishers.reduce((a, p) => a + p.failed, 0);
      if (sent * perChannel - pool.received() > window) {
        await pool.nextProgress();
        continue;
      }
      const n = published++;
      const group = Math.floor(Math.random() * processes);
      const channel = `c${group}-${Math.floor(Math.random() * channelsPer)}`;
      await publishers[n % publishers.length].trigger(channel, 'tick', `@${nowMicros()}`);
    }
  };
  const lanes = Promise.all(Array.from({ length: 16 }, lane));
  await sleep(seconds * 1000);
  running = false;
  const elapsed = (performance.now() - t0) / 1000;
  const bytes1 = redisBytesByPid(redis.ports);
  const cpu1 = pids.map(readCpuSeconds);
  const counters1 = await Promise.all(
    nodes.map((node) => (node.herald ? heraldClusterCounters(node.port) : {})),
  );
  const progress1 = [...pool.progress];
  await lanes;
  const ok = publishers.reduce((a, p) => a + p.ok, 0);
  const failed = publishers.reduce((a, p) => a + p.failed, 0);
  // Drain what is in flight, then count.
  const expected = ok * perChannel;
  const deadline = performance.now() + 10_000;
  while (pool.received() < expected && performance.now() < deadline) await pool.nextProgress(100);
  await pool.stop();
  const totals = await pool.collect();
  await pool.close();
  for (const publisher of publishers) publisher.close();

  const latency = totals.histogram.summary();
  const perSecond = (a, b) => round((b - a) / elapsed);
  const rows = [];
  if (layout === 'cluster') {
    nodes.forEach((node, k) => {
      const redisBytes = (bytes1.get(node.pid) ?? 0) - (bytes0.get(node.pid) ?? 0);
      const c0 = counters0[k] ?? {};
      const c1 = counters1[k] ?? {};
      rows.push({
        node: `n${k}`,
        deliveries_s: perSecond(progress0[k], progress1[k]),
        redis_msgs_s: c1.messages !== undefined ? perSecond(c0.messages ?? 0, c1.messages) : null,
        redis_kib_s: round(redisBytes / 1024 / elapsed, 1),
        redis_bytes_per_publish: round(redisBytes / Math.max(1, ok)),
        adapter_kib_s:
          c1.bytes !== undefined ? round((c1.bytes - (c0.bytes ?? 0)) / 1024 / elapsed, 1) : null,
        cpu_pct: round((100 * (cpu1[k] - cpu0[k])) / elapsed),
      });
    });
  } else {
    pids.forEach((pid, k) => {
      const redisBytes = (bytes1.get(pid) ?? 0) - (bytes0.get(pid) ?? 0);
      rows.push({
        node: `worker ${k + 1} (pid ${pid})`,
        redis_kib_s: round(redisBytes / 1024 / elapsed, 1),
        redis_bytes_per_publish: round(redisBytes / Math.max(1, ok)),
        cpu_pct: round((100 * (cpu1[k] - cpu0[k])) / elapsed),
      });
    });
  }
  return {
    target: name,
    layout,
    redis: redis.ports.length > 1 ? 'cluster (3 masters)' : 'single',
    nodes: layout === 'cluster' ? nodes.length : pids.length,
    sockets: pool.connected,
    channels: processes * channelsPer,
    subscribers_per_channel: perChannel,
    publishes_s: round(ok / elapsed),
    failed_publishes: failed,
    deliveries_s: round(
      progress1.reduce((a, b) => a + b, 0) / elapsed - progress0.reduce((a, b) => a + b, 0) / elapsed,
    ),
    delivery_ratio: round(totals.received / Math.max(1, expected), 4),
    p50_ms: round(latency.p50, 2),
    p99_ms: round(latency.p99, 2),
    server_cpu_pct: round(rows.reduce((a, row) => a + (row.cpu_pct ?? 0), 0)),
    per_node: rows,
  };
}

function printResult(result) {
  console.log(
    `\n## ${result.target} — ${result.nodes} ${layout === 'cluster' ? 'nodes' : 'workers'}, Redis ${result.redis}: ` +
      `${result.publishes_s} publishes/s, ${result.deliveries_s} deliveries/s (ratio ${result.delivery_ratio}), ` +
      `p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, server CPU ${result.server_cpu_pct} %`,
  );
  const keys = Object.keys(result.per_node[0] ?? {});
  console.log(`| ${keys.join(' | ')} |`);
  console.log(`|${keys.map(() => '---').join('|')}|`);
  for (const row of result.per_node) console.log(`| ${keys.map((key) => row[key] ?? '–').join(' | ')} |`);
}

const results = [];
const machine = { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version };
log(
  `${layout} layout · ${targets.join(', ')} · ${seconds} s each · ${subscribers} sockets × ${channelsPer} channels per load process · ` +
    `rate ${rate || 'unbounded'}/s · Redis ${values['redis-cluster'] ? 'cluster' : 'single'}`,
);
try {
  for (const name of targets) {
    try {
      const result = await runTarget(name);
      results.push(result);
      console.log(JSON.stringify(result));
      printResult(result);
    } catch (error) {
      log(`${name} failed: ${error?.message ?? error}`);
      results.push({ target: name, error: String(error?.message ?? error) });
    }
  }
} finally {
  await stopAll();
}
const outFile = values.out ?? `${workDir}/cluster-last-run.json`;
writeFileSync(outFile, `${JSON.stringify({ at: new Date().toISOString(), machine, results }, null, 2)}\n`);
log(`wrote ${outFile}`);
