#!/usr/bin/env node
// What `idle`'s kib_per_conn is made of. Runs the `idle` scenario (N sockets, each subscribed to one of 1 000 channels,
// RSS growth 2 s after the last subscribe) on each target in turn, with a probe preloaded into the server
// (lib/memory-probe.mjs) that reads V8's heap spaces at the same two marks and once more after a collection: how much
// of the growth is V8's young generation (semi-spaces sized by how much survived the burst, and freed by no
// collection), how much the old generation, how much lies outside the JavaScript heap (uWS's sockets, buffers).
//   node bench/idle-memory.mjs [--targets herald,ceiling] [--runs 3] [--connections 10000] [--bin other/bin.js]
//                              [--node PATH] [--node-arg --trace-gc …] [--allocations /tmp/prefix]
// The run re-executes itself pinned to the load core (as run.mjs does); servers run on the server core.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { scenarios } from './lib/scenarios.mjs';
import { reexecPinned, startTarget } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: 'herald,ceiling' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10000' },
    processes: { type: 'string', default: '4' },
    bin: { type: 'string' },
    node: { type: 'string' },
    // Flags for the target's Node (repeat for more), e.g. --trace-gc: its log is bench/targets/logs/<target>-memory.log.
    'node-arg': { type: 'string', multiple: true, default: [] },
    // Every allocation from the first mark to the collection, by function (V8's sampling heap profiler, collected
    // objects included): written to <prefix>-<target>-<run>.heapprofile (Chrome DevTools opens it).
    allocations: { type: 'string' },
    'load-cpu': { type: 'string', default: '1' },
    'server-cpu': { type: 'string', default: '0' },
  },
});
reexecPinned(import.meta.url, values['load-cpu']);

const log = (message) => console.error(`[idle-memory] ${message}`);
const probe = fileURLToPath(new URL('./lib/memory-probe.mjs', import.meta.url));
const connections = Number(values.connections);
const idle = scenarios({ quick: false, maxConnections: connections }).find((s) => s.name === 'idle-max');
const targets = values.targets.split(',');
const dir = mkdtempSync(join(tmpdir(), 'herald-idle-memory-'));
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The probe's lines so far. */
function marks(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
}

async function waitForMarks(file, count) {
  for (let waited = 0; marks(file).length < count; waited += 50) {
    if (waited > 30_000) throw new Error(`the probe wrote no line ${count} within 30 s`);
    await sleep(50);
  }
}

/** One `idle` run on a target with the probe's three readings: before, at the 2 s mark, after a collection. */
async function measure(name, run) {
  const file = join(dir, `${name}-${run}.jsonl`);
  process.env.HERALD_MEMORY_PROBE = file;
  if (values.allocations)
    process.env.HERALD_MEMORY_PROBE_ALLOCATIONS = `${values.allocations}-${name}-${run}.heapprofile`;
  const target = await startTarget(name, {
    cpu: values['server-cpu'],
    node: values.node,
    bin: values.bin,
    transport: 'uws',
    label: `${name}-memory`,
    nodeArgs: ['--import', probe, ...values['node-arg']],
  });
  delete process.env.HERALD_MEMORY_PROBE;
  delete process.env.HERALD_MEMORY_PROBE_ALLOCATIONS;
  let readings = 0;
  const probed = {
    ...target,
    // The scenario reads the RSS before the first socket and at its mark: the probe reads V8's side at both.
    rssKiB() {
      readings += 1;
      process.kill(target.pid, 'SIGWINCH');
      return target.rssKiB();
    },
    async stop() {
      await waitForMarks(file, readings);
      process.kill(target.pid, 'SIGUSR2');
      await waitForMarks(file, readings + 1);
      await target.stop();
    },
  };
  const result = await idle.run(probed, { processes: Number(values.processes), log });
  const [before, after, collected] = marks(file);
  const perConn = (bytes) => (bytes / 1024 / Math.max(1, result.connections)).toFixed(2);
  // Resident bytes of each space (what RSS counts); the young generation's size is V8's (both semi-spaces).
  const heap = (reading) => Object.values(reading.spaces).reduce((sum, space) => sum + space.physical, 0);
  const young = (reading) => reading.spaces.new_space.physical;
  const old = (reading) => heap(reading) - young(reading);
  const youngSize = (reading) => reading.spaces.new_space.size;
  return {
    target: name,
    run,
    connections: result.connections,
    kib_per_conn: result.kib_per_conn,
    // The process's RSS at the mark: the growth above is from a baseline that start-up's own heap sizing moves.
    rss_mib: result.rss_mib,
    young_mib: `${(youngSize(before) / MiB).toFixed(0)} → ${(youngSize(after) / MiB).toFixed(0)}`,
    young_kib_per_conn: perConn(young(after) - young(before)),
    old_kib_per_conn: perConn(old(after) - old(before)),
    off_heap_kib_per_conn: perConn(after.rss - before.rss - (heap(after) - heap(before))),
    live_heap_kib_per_conn: perConn(collected.heapUsed - before.heapUsed),
  };
}

const rows = [];
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    const order = run % 2 === 1 ? targets : [...targets].reverse();
    for (const name of order) {
      const row = await measure(name, run);
      log(JSON.stringify(row));
      rows.push(row);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const columns = Object.keys(rows[0] ?? {});
console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${columns.map((column) => row[column]).join(' | ')} |`);
