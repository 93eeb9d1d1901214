#!/usr/bin/env node
// What each idle subscribed socket keeps on the server's JavaScript heap, by constructor: starts a target with
// `--heapsnapshot-signal`, takes a snapshot (V8 collects garbage first) with no sockets and again with N sockets each
// subscribed to one of 1 000 channels, and prints the difference per socket. It explains the `idle` scenario's
// kib_per_conn, which is RSS (heap + native: sockets, buffers) without a collection.
//   node bench/heap-per-socket.mjs [--target herald-portable|ceiling-ws|herald|ceiling] [--sockets 2000] [--node PATH]
//                                  [--bin path/to/apps/realtime/dist/bin.js]   (another build of Herald: before/after)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { APP, freePort, heraldConfig, waitForPort } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'herald-portable' },
    sockets: { type: 'string', default: '2000' },
    node: { type: 'string', default: process.execPath },
    top: { type: 'string', default: '25' },
    bin: { type: 'string' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'herald-heap-'));
const port = await freePort();
const target = values.target;
let args;
const env = { ...process.env, NODE_ENV: 'production' };
if (target.startsWith('herald')) {
  const config = join(dir, 'herald.json');
  writeFileSync(config, JSON.stringify(heraldConfig(port)));
  args = [
    values.bin ?? `${root}apps/realtime/dist/bin.js`,
    'server',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--config',
    config,
  ];
  env.REALTIME_TRANSPORT = target === 'herald-portable' ? 'portable' : 'uws';
} else {
  args = [`${root}bench/${target === 'ceiling-ws' ? 'ceiling-ws' : 'ceiling'}.mjs`, String(port)];
}
const child = spawn(values.node, ['--heapsnapshot-signal=SIGUSR2', ...args], {
  cwd: dir,
  env,
  stdio: 'ignore',
});
try {
  await waitForPort(port, child, 60_000);
  const before = await snapshot();
  const count = Number(values.sockets);
  const sockets = [];
  for (let i = 0; i < count; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 50); j++) batch.push(open(j));
    sockets.push(...(await Promise.all(batch)));
  }
  const after = await snapshot();
  const rows = [...new Set([...before.keys(), ...after.keys()])]
    .map((name) => {
      const a = after.get(name) ?? { size: 0, count: 0 };
      const b = before.get(name) ?? { size: 0, count: 0 };
      return { name, bytes: (a.size - b.size) / count, objects: (a.count - b.count) / count };
    })
    .sort((x, y) => y.bytes - x.bytes);
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  console.log(
    `${target} on Node ${values.node === process.execPath ? process.versions.node : values.node}: ` +
      `${count} sockets, heap kept per socket ${(total / 1024).toFixed(2)} KiB`,
  );
  console.log('| bytes/socket | objects/socket | what |\n|---:|---:|---|');
  for (const row of rows.slice(0, Number(values.top)))
    console.log(`| ${row.bytes.toFixed(0)} | ${row.objects.toFixed(2)} | ${row.name} |`);
  for (const ws of sockets) ws.terminate();
} finally {
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

function open(i) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${APP.key}?protocol=7`, {
      perMessageDeflate: false,
    });
    ws.on('error', reject);
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.event === 'pusher:connection_established')
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: `idle-${i % 1000}` } }));
      if (message.event === 'pusher_internal:subscription_succeeded') resolve(ws);
    });
  });
}

/** Self size and count per (type, constructor name) of a heap snapshot taken now. */
async function snapshot() {
  const known = new Set(readdirSync(dir));
  child.kill('SIGUSR2');
  let file;
  for (let waited = 0; !file && waited < 120_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot') && !known.has(name));
  }
  if (!file) throw new Error('no heap snapshot');
  // The file is complete once its size stops changing.
  let last = -1;
  for (;;) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (text.length === last && text.endsWith('}')) break;
    last = text.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const data = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  rmSync(join(dir, file));
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const out = new Map();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]];
    const name =
      type === 'object' || type === 'closure' || type === 'native'
        ? data.strings[data.nodes[i + nameAt]]
        : '';
    const key = `${type}${name ? ` ${name}` : ''}`;
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += data.nodes[i + sizeAt];
    entry.count += 1;
    out.set(key, entry);
  }
  return out;
}
