#!/usr/bin/env node
// The PUBLISH ceiling of one Redis master: how many publishes per second one redis-server (single-threaded, as each
// master of a Redis Cluster is) takes when every publish reaches K subscribed connections, for K = the nodes that hold
// the channel under interest routing. docs/scaling.md builds its Redis sizing on these figures.
//
// The script starts its own redis-server on a free loopback port, K subscribed connections of its own that count the
// bytes Redis pushes (standing in for nodes), and `redis-benchmark` publishing messages of the size a Herald cluster
// message has. A run lasts from the first publish until every subscriber holds every message. It prints one JSON line
// per K and stops everything it started.
//
//   node bench/redis-ceiling.mjs [--subscribers 0,1,3,8] [--requests 400000] [--bytes 150] [--pipeline 16]
//
// On a machine with few cores redis-server shares them with the benchmark client and the subscribers: the figures
// are then a floor for a dedicated Redis host.
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { freePort, waitForPort } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '0,1,3,8' },
    requests: { type: 'string', default: '400000' },
    bytes: { type: 'string', default: '150' },
    pipeline: { type: 'string', default: '16' },
    clients: { type: 'string', default: '20' },
  },
});

for (const tool of ['redis-server', 'redis-cli', 'redis-benchmark']) {
  if (spawnSync(tool, ['--version']).status !== 0) {
    console.error(`redis-ceiling: ${tool} is not on PATH`);
    process.exit(1);
  }
}

const port = await freePort();
const server = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: 'ignore' },
);
const started = [server];
const stopAll = () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));

/** Subscribes a raw connection to `topic`; it counts the bytes Redis pushes and parses nothing (a node at its fastest). */
function subscriber(topic) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const counter = { socket, bytes: 0 };
    socket.on('data', (chunk) => {
      counter.bytes += chunk.length;
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(`*2\r\n$9\r\nSUBSCRIBE\r\n$${topic.length}\r\n${topic}\r\n`);
      resolve(counter);
    });
  });
}

/**
 * Publishes/s from the first publish until every subscriber has received every message, and the Redis process's CPU
 * share over that time, with `count` subscribers.
 */
async function run(count) {
  const topic = `bench-ceiling-${count}`;
  const payload = 'x'.repeat(Number(values.bytes));
  const requests = Number(values.requests);
  const subscribers = await Promise.all(Array.from({ length: count }, () => subscriber(topic)));
  // Every subscription is in place before the first publish.
  for (const deadline = Date.now() + 20_000; numsub(topic) < count; ) {
    if (Date.now() > deadline) throw new Error(`subscribers did not subscribe to ${topic}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const confirmed = subscribers.map((each) => each.bytes);
  // What one message costs on the wire to a subscriber: ["message", topic, payload] in RESP.
  const frame = `*3\r\n$7\r\nmessage\r\n$${topic.length}\r\n${topic}\r\n$${payload.length}\r\n${payload}\r\n`;
  const expected = requests * frame.length;
  const cpuBefore = redisCpuSeconds();
  const startedAt = process.hrtime.bigint();
  const bench = spawn(
    'redis-benchmark',
    [
      ...['-p', String(port), '-c', values.clients, '-n', String(requests), '-P', values.pipeline, '-q'],
      ...['PUBLISH', topic, payload],
    ],
    { stdio: 'ignore' },
  );
  started.push(bench);
  const exitCode = await new Promise((resolve) => bench.once('exit', resolve));
  if (exitCode !== 0) throw new Error(`redis-benchmark exited with ${exitCode}`);
  let done = process.hrtime.bigint();
  // Delivered means every subscriber holds every message (bounded: a stalled run fails rather than hangs).
  for (const deadline = Date.now() + 120_000; ; ) {
    const behind = subscribers.filter((each, i) => each.bytes - (confirmed[i] ?? 0) < expected);
    if (behind.length === 0) break;
    if (Date.now() > deadline) throw new Error(`${behind.length} subscribers did not receive every message`);
    await new Promise((resolve) => setImmediate(resolve));
    done = process.hrtime.bigint();
  }
  const seconds = Number(done - startedAt) / 1e9;
  const cpu = redisCpuSeconds() - cpuBefore;
  for (const each of subscribers) each.socket.destroy();
  return {
    subscribers: count,
    message_bytes: payload.length,
    publishes_s: Math.round(requests / seconds),
    deliveries_s: Math.round((requests * count) / seconds),
    redis_cpu_pct: Math.round((cpu / seconds) * 100),
  };
}

function redisCli(...args) {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout;
}

function numsub(topic) {
  return Number(redisCli('PUBSUB', 'NUMSUB', topic).trim().split('\n')[1] ?? 0);
}

/** The redis-server's user + system CPU seconds so far, from /proc. */
function redisCpuSeconds() {
  const stat = spawnSync('cat', [`/proc/${server.pid}/stat`], { encoding: 'utf8' }).stdout;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

await waitForPort(port, server, 20_000);
for (const count of values.subscribers.split(',').map(Number)) {
  console.log(JSON.stringify(await run(count)));
}
stopAll();
