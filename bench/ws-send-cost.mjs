#!/usr/bin/env node
// Server CPU per fan-out delivery on node:http + ws, without REST, HTTP parsing or the bench's load clients: what
// one broadcast to N subscribers costs the server's process, per subscriber, for a bare ws server and for Herald's
// portable transport, on any Node line. It tells the send path's own cost apart from everything else the end-to-end
// `fanout-1k` figure carries (triggers, the load side, the machine's other work).
//
// The server (a child process pinned to the server core) publishes the same Pusher frame to every subscriber of one
// channel, keeping at most `--window` broadcasts ahead of what the subscribers have read; the subscribers are raw TCP
// sockets in this process (pinned to the load core) that only count frames. The figure is the server process's CPU
// time (user + system, V8's helper threads included) from the first broadcast until every frame was read, divided
// by the deliveries. Every configuration runs once per round, the next round in the reverse order.
//
// Variants (`--variants`, comma-separated):
//   bare-binary   ceiling-ws.mjs's send: `ws.send(buffer)` (a binary frame, no options object)
//   bare-text     the same with `ws.send(buffer, { binary: false })` (a text frame, as Herald's portable transport sent it while it ran on ws)
//   herald        `createRealtimeServer({ transport: 'portable' })` and `server.publish` (Herald's own path)
//   herald-metrics  the same with Prometheus' default process metrics on, as the app runs it
// Any variant + `+gc`: one full collection taken as the app takes it before it listens (`--expose-gc` switched on
// and off with v8.setFlagsFromString, `gc` from a fresh vm context).
//
// Usage: node bench/ws-send-cost.mjs [--node PATH[,PATH…]] [--variants bare-binary,bare-text,herald]
//                                    [--sockets 1000] [--publishes 2000] [--window 50] [--rounds 3]
//                                    [--server-flags "--max-semi-space-size=8"] [--read-every-ms 0] [--out file.json]
//                                    [--server-wrapper "valgrind --tool=cachegrind --cache-sim=no"]
// With a wrapper such as valgrind the server's instructions can be counted whatever the machine's load: run twice
// with different `--publishes` and divide the difference by the extra deliveries (start-up cancels out).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  APP,
  fileLimit,
  freePort,
  hasTaskset,
  heraldConfig,
  readCpuTimes,
  readWriteCalls,
  reexecPinned,
  waitForPort,
} from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    variant: { type: 'string' },
    node: { type: 'string', default: process.execPath },
    variants: { type: 'string', default: 'bare-binary,bare-text,herald' },
    sockets: { type: 'string', default: '1000' },
    publishes: { type: 'string', default: '2000' },
    window: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    'server-flags': { type: 'string', default: '' },
    'read-every-ms': { type: 'string', default: '0' },
    'server-wrapper': { type: 'string', default: '' },
    'server-cpu': { type: 'string', default: '0' },
    'load-cpu': { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});

const CHANNEL = 'fanout';
const KEY = 'bench-key';
// About the bench's fan-out frame: `@<µs>` and a little more.
const DATA = `@${'0'.repeat(16)}`;

// ---------------------------------------------------------------------------------------------------------------
// The server side (child process)

async function serve(variant) {
  const [kind, modifier] = variant.split('+');
  const { port, publish } =
    kind === 'herald' || kind === 'herald-metrics'
      ? await startHerald(kind === 'herald-metrics')
      : await startBare(kind === 'bare-text');
  // Where the app takes it: the server built, no socket open yet.
  if (modifier === 'gc') collectStartupGarbage();
  process.send({ port });
  let sent = 0;
  let acked = 0;
  let total = 0;
  let window = 0;
  let started;
  let cpu;
  let writes;
  // Garbage collections during the broadcasts (one performance entry each: a negligible cost of its own).
  const gc = { count: 0, ms: 0 };
  new PerformanceObserver((list) => {
    if (started === undefined) return;
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  const pump = () => {
    while (sent < total && sent - acked < window) {
      publish();
      sent++;
    }
  };
  process.on('message', (message) => {
    if (message.start) {
      ({ total, window } = message.start);
      started = performance.now();
      writes = writeCalls();
      cpu = process.cpuUsage();
      pump();
    } else if (message.acked !== undefined) {
      acked = message.acked;
      if (acked < total) {
        pump();
        return;
      }
      const used = process.cpuUsage(cpu);
      process.send({
        done: {
          cpu_us: used.user + used.system,
          user_us: used.user,
          write_calls: writeCalls() - writes,
          gc_count: gc.count,
          gc_ms: gc.ms,
          wall_ms: performance.now() - started,
          heap_used_mib: process.memoryUsage().heapUsed / 2 ** 20,
        },
      });
    } else if (message.exit) {
      process.exit(0);
    }
  });
}

/**
 * The process's write-family system calls so far (`syscw` of /proc/self/io: write, writev…): each is one socket
 * write, so deliveries per call tell how many frames the kernel took per write.
 */
function writeCalls() {
  try {
    return Number(/syscw: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** The app's start-up collection (apps/realtime/src/startup-heap.ts), for the `+gc` variants. */
function collectStartupGarbage() {
  setFlagsFromString('--expose-gc');
  try {
    runInNewContext('typeof gc === "function" ? gc : undefined')?.();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

async function startBare(text) {
  const { createServer } = await import('node:http');
  const { WebSocketServer } = await import('ws');
  const { connectionEstablished, dispatchFrame, frame, subscribed } = await import(
    './lib/ceiling-protocol.mjs'
  );
  const members = new Set();
  const TEXT = { binary: false };
  const ops = {
    subscribe(ws, channel) {
      members.add(ws);
      ws.send(subscribed(channel));
    },
    unsubscribe: (ws) => members.delete(ws),
    send: (ws, message) => ws.send(message),
    clientEvent() {},
  };
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false });
  const server = createServer((_request, response) => response.end());
  let nextId = 1;
  server.on('upgrade', (request, socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('message', (message) => dispatchFrame(ws, message.toString(), ops));
      ws.on('close', () => members.delete(ws));
      ws.send(connectionEstablished(`${process.pid}.${nextId++}`));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    publish() {
      // As ceiling-ws.mjs: encoded once, the same Buffer to every socket.
      const bytes = Buffer.from(frame('tick', CHANNEL, DATA));
      if (text) {
        for (const ws of members) if (ws.bufferedAmount <= 1024 * 1024) ws.send(bytes, TEXT);
      } else {
        for (const ws of members) if (ws.bufferedAmount <= 1024 * 1024) ws.send(bytes);
      }
    },
  };
}

async function startHerald(processMetrics) {
  const { createRealtimeServer } = await import('@herald/realtime-server');
  const server = createRealtimeServer({
    apps: [{ id: 'bench', key: KEY, secret: 'bench-secret', maxConnections: 10_000_000 }],
    host: '127.0.0.1',
    port: 0,
    transport: 'portable',
    processMetrics,
    activityTimeout: 120,
    pingInterval: 120,
  });
  const port = await server.listen();
  const request = { channels: [CHANNEL], event: 'tick', data: DATA };
  return { port, publish: () => server.publish('bench', request) };
}

// ---------------------------------------------------------------------------------------------------------------
// The subscribers and the runs (this process)

async function main() {
  reexecPinned(import.meta.url, values['load-cpu']);
  const nodes = values.node.split(',');
  const variants = values.variants.split(',');
  const rounds = Number(values.rounds);
  const configs = nodes.flatMap((node) => variants.map((variant) => ({ node, variant })));
  const figures = new Map(configs.map((config) => [label(config), []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? configs : [...configs].reverse();
    for (const config of order) {
      const run = PROCESS_VARIANTS.has(config.variant) ? await runProcess(config) : await runOnce(config);
      figures.get(label(config)).push(run);
      console.error(`[ws-send-cost] round ${round + 1} ${label(config)}: ${JSON.stringify(run)}`);
    }
  }
  const rows = configs.map((config) => {
    const runs = figures.get(label(config));
    const perDelivery = runs.map((run) => run.cpu_us_per_delivery);
    return {
      node: versionOf(config.node),
      variant: config.variant,
      cpu_us_per_delivery: perDelivery,
      median: median(perDelivery),
      user_us_per_delivery: median(runs.map((run) => run.user_us_per_delivery)),
      gc_us_per_delivery: median(runs.map((run) => run.gc_us_per_delivery)),
      deliveries_per_write: median(runs.map((run) => run.deliveries_per_write)),
      heap_used_mib: median(runs.map((run) => run.heap_used_mib)),
    };
  });
  console.log(
    '| Node | variant | server CPU µs per delivery (each round) | median | of it user | of it GC | deliveries per write call | heap used MiB |',
  );
  console.log('|---|---|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.node} | ${row.variant} | ${row.cpu_us_per_delivery.join(', ')} | ${row.median} | ` +
        `${row.user_us_per_delivery} | ${row.gc_us_per_delivery} | ${row.deliveries_per_write} | ${row.heap_used_mib} |`,
    );
  }
  const result = {
    sockets: Number(values.sockets),
    publishes: Number(values.publishes),
    window: Number(values.window),
    server_flags: values['server-flags'],
    read_every_ms: Number(values['read-every-ms']),
    rows,
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}

const versions = new Map();
function versionOf(node) {
  if (!versions.has(node))
    versions.set(node, spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim());
  return versions.get(node);
}

const label = ({ node, variant }) => `${versionOf(node)} ${variant}`;

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One server process, N subscribers, the broadcasts; resolves with the server's figures. */
async function runOnce({ node, variant }) {
  const sockets = Number(values.sockets);
  const total = Number(values.publishes);
  const self = fileURLToPath(import.meta.url);
  const flags = values['server-flags'].split(' ').filter(Boolean);
  const wrapper = values['server-wrapper'].split(' ').filter(Boolean);
  const args = [...wrapper, node, ...flags, self, '--role', 'server', '--variant', variant];
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const pin = hasTaskset ? `taskset -c ${values['server-cpu']} ` : '';
  // The IPC channel's descriptor survives bash's exec, so the pinned Node is this process's child over IPC.
  const child = spawn('bash', ['-c', `ulimit -n ${fileLimit()} && exec ${pin}${quoted}`], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages = [];
  let wake;
  child.on('message', (message) => {
    messages.push(message);
    wake?.();
  });
  const next = async (field) => {
    const limit = Date.now() + 600_000;
    for (;;) {
      const index = messages.findIndex((message) => message[field] !== undefined);
      if (index >= 0) return messages.splice(index, 1)[0][field];
      if (child.exitCode !== null) throw new Error(`server ${variant} exited with ${child.exitCode}`);
      if (Date.now() > limit) throw new Error(`server ${variant}: no ${field} within 600 s`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 1000);
      });
    }
  };
  const subscribers = [];
  try {
    const port = await next('port');
    const counter = { frames: 0, acked: 0, send: (acked) => child.send({ acked }) };
    subscribers.push(...(await subscribeAll(port, sockets, counter)));
    // Only the broadcasts count from here: one frame per socket per broadcast.
    counter.frames = 0;
    counter.perPublish = sockets;
    const lagging = lagReaders(subscribers, Number(values['read-every-ms']));
    child.send({ start: { total, window: Number(values.window) } });
    const done = await next('done').finally(lagging.stop);
    return {
      cpu_us_per_delivery: Number((done.cpu_us / (total * sockets)).toFixed(3)),
      user_us_per_delivery: Number((done.user_us / (total * sockets)).toFixed(3)),
      deliveries_per_write: Number(((total * sockets) / done.write_calls).toFixed(2)),
      gc_us_per_delivery: Number(((done.gc_ms * 1000) / (total * sockets)).toFixed(3)),
      gcs: done.gc_count,
      wall_ms: Math.round(done.wall_ms),
      heap_used_mib: Number(done.heap_used_mib.toFixed(1)),
    };
  } finally {
    for (const socket of subscribers) socket.destroy();
    if (child.exitCode === null) {
      child.send({ exit: true });
      await new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

// The whole servers as the bench starts them, fed by REST triggers from this process (Bearer auth, one keep-alive
// connection per lane): the app (`apps/realtime/dist/bin.js server`, portable transport) and ceiling-ws.mjs.
const PROCESS_VARIANTS = new Set(['app', 'ceiling-ws']);

/** One whole server process, N subscribers, the broadcasts as REST triggers; its CPU from /proc. */
async function runProcess({ node, variant }) {
  const sockets = Number(values.sockets);
  const total = Number(values.publishes);
  const window = Number(values.window);
  const bench = fileURLToPath(new URL('.', import.meta.url));
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'herald-send-cost-'));
  const env = { ...process.env };
  let script;
  if (variant === 'app') {
    const config = join(dir, 'herald.json');
    writeFileSync(config, JSON.stringify(heraldConfig(port)));
    script = [
      `${bench}../apps/realtime/dist/bin.js`,
      'server',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ];
    script.push('--config', config);
    env.NODE_ENV = 'production';
    env.REALTIME_TRANSPORT = 'portable';
  } else {
    script = [`${bench}ceiling-ws.mjs`, String(port)];
  }
  const wrapper = values['server-wrapper'].split(' ').filter(Boolean);
  const flags = values['server-flags'].split(' ').filter(Boolean);
  const args = [...wrapper, node, ...flags, ...script];
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const pin = hasTaskset ? `taskset -c ${values['server-cpu']} ` : '';
  const child = spawn('bash', ['-c', `ulimit -n ${fileLimit()} && exec ${pin}${quoted} >'${dir}/log' 2>&1`], {
    cwd: dir,
    env,
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const subscribers = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    await waitForPort(port, child, 600_000);
    const counter = { frames: 0, acked: 0, send: () => {} };
    subscribers.push(...(await subscribeAll(port, sockets, counter)));
    counter.frames = 0;
    counter.perPublish = sockets;
    const body = JSON.stringify({ name: 'tick', channel: CHANNEL, data: DATA });
    const trigger = () =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          {
            agent,
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: `/apps/${APP.id}/events`,
            headers: {
              authorization: `Bearer ${APP.secret}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              response.statusCode === 200 ? resolve() : reject(new Error(`trigger: ${response.statusCode}`)),
            );
          },
        );
        request.once('error', reject);
        request.end(body);
      });
    const cpu0 = readCpuTimes(child.pid);
    const writes0 = readWriteCalls(child.pid);
    const started = performance.now();
    let sent = 0;
    const finished = new Promise((resolve, reject) => {
      const pump = () => {
        if (counter.acked >= total) resolve();
        while (sent < total && sent - counter.acked < window) {
          sent++;
          trigger().catch(reject);
        }
      };
      counter.send = pump;
      pump();
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 1_800_000);
    await Promise.race([finished, exited.then(() => Promise.reject(new Error(`${variant} exited`)))]);
    clearTimeout(limit);
    const cpu1 = readCpuTimes(child.pid);
    const writes = readWriteCalls(child.pid) - writes0;
    const deliveries = total * sockets;
    return {
      cpu_us_per_delivery: Number(
        (((cpu1.user + cpu1.system - cpu0.user - cpu0.system) * 1e6) / deliveries).toFixed(3),
      ),
      user_us_per_delivery: Number((((cpu1.user - cpu0.user) * 1e6) / deliveries).toFixed(3)),
      deliveries_per_write: Number((deliveries / writes).toFixed(2)),
      wall_ms: Math.round(performance.now() - started),
      // Not measured from outside the process.
      gc_us_per_delivery: null,
      heap_used_mib: null,
    };
  } finally {
    agent.destroy();
    for (const socket of subscribers) socket.destroy();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * With `everyMs` > 0 the subscribers read only once every `everyMs` (each socket paused in between), so unread frames
 * pile up in the kernel as behind slow clients and the server's writes find full socket buffers.
 */
function lagReaders(sockets, everyMs) {
  if (!(everyMs > 0)) return { stop() {} };
  for (const socket of sockets) socket.pause();
  const timer = setInterval(() => {
    for (const socket of sockets) socket.resume();
    setImmediate(() => {
      for (const socket of sockets) socket.pause();
    });
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      for (const socket of sockets) socket.resume();
    },
  };
}

/**
 * A raw WebSocket client: the handshake, one masked `pusher:subscribe`, then frames counted without being read (the
 * server's frames are short and unmasked). Resolves once the subscription succeeded.
 */
/** `count` subscribers, opened 50 at a time. */
async function subscribeAll(port, count, counter) {
  const opened = [];
  for (let i = 0; i < count; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 50); j++) batch.push(subscribe(port, counter));
    opened.push(...(await Promise.all(batch)));
  }
  return opened;
}

function subscribe(port, counter) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let handshaken = false;
    let head = Buffer.alloc(0);
    let skip = 0;
    let frames = 0;
    socket.setNoDelay(true);
    socket.once('error', reject);
    socket.on('connect', () => {
      socket.write(
        `GET /app/${KEY}?protocol=7&client=js&version=8.4.0 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk) => {
      const data = head.length > 0 ? Buffer.concat([head, chunk]) : chunk;
      head = Buffer.alloc(0);
      let offset = 0;
      if (!handshaken) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) {
          head = data;
          return;
        }
        if (!data.subarray(0, 12).toString().includes('101')) {
          reject(new Error(`handshake refused: ${data.subarray(0, end).toString()}`));
          return;
        }
        handshaken = true;
        offset = end + 4;
        socket.write(maskedText(JSON.stringify({ event: 'pusher:subscribe', data: { channel: CHANNEL } })));
      }
      while (offset < data.length) {
        if (skip > 0) {
          const taken = Math.min(skip, data.length - offset);
          skip -= taken;
          offset += taken;
          continue;
        }
        if (data.length - offset < 2) break;
        const length7 = data[offset + 1] & 0x7f;
        const header = length7 === 126 ? 4 : length7 === 127 ? 10 : 2;
        if (data.length - offset < header) break;
        const length =
          length7 === 126
            ? data.readUInt16BE(offset + 2)
            : length7 === 127
              ? Number(data.readBigUInt64BE(offset + 2))
              : length7;
        offset += header;
        skip = length;
        frames++;
        // connection_established, then subscription_succeeded: subscribed.
        if (frames === 2) resolve(socket);
        if (frames > 2) counter.frames++;
      }
      if (offset < data.length) head = Buffer.from(data.subarray(offset));
      const completed = Math.floor(counter.frames / (counter.perPublish ?? Number.POSITIVE_INFINITY));
      if (completed > counter.acked) {
        counter.acked = completed;
        counter.send(completed);
      }
    });
  });
}

/** A client text frame, masked with a zero key (allowed; the payload stays as it is). */
function maskedText(text) {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('frame too long for this client');
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

if (values.role === 'server') await serve(values.variant);
else await main();
