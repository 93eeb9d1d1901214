#!/usr/bin/env node
// Herald's benchmark. `pnpm bench` runs Herald alone; `pnpm bench:compare` runs every target (Herald on each
// transport, soketi, the bare uWS and bare ws ceilings), alternating, and prints each figure with the ratios.
// Usage: node bench/run.mjs [--compare] [--quick] [--targets herald,soketi,ceiling,ceiling-ws] [--only fanout-1k,rest]
//                           [--transport auto|uws|portable] [--node /path/to/node]
//                           [--profile] [--processes 4] [--max-connections N] [--out file.json]
// The run re-executes itself under `bash -c 'ulimit -n … && exec taskset -c 1 node …'`: the load on core 1,
// each server on core 0.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { scenarios } from './lib/scenarios.mjs';
import {
  ensureSoketi,
  fileLimit,
  hasTaskset,
  reexecPinned,
  startTarget,
  TARGETS,
  workDir,
} from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    compare: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    targets: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    processes: { type: 'string', default: '4' },
    'max-connections': { type: 'string' },
    out: { type: 'string' },
    'load-cpu': { type: 'string', default: '1' },
    'server-cpu': { type: 'string', default: '0' },
    'quiet-wait': { type: 'string' },
    transport: { type: 'string', default: 'auto' },
    node: { type: 'string' },
    console: { type: 'boolean', default: false },
    bin: { type: 'string' },
  },
});

reexecPinned(import.meta.url, values['load-cpu']);

const log = (message) => console.error(`[bench] ${message}`);
const targets = values.targets ? values.targets.split(',') : values.compare ? TARGETS : ['herald'];
// --console: also run Herald with a console watching the bench app (alternating with the other targets).
if (values.console && !targets.includes('herald-console')) targets.push('herald-console');
for (const target of targets) if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}`);
const transport = values.transport;
if (!['auto', 'uws', 'portable'].includes(transport))
  throw new Error(`--transport ${transport}: auto, uws or portable`);
// The Node that runs Herald and the ceilings (soketi stays on this one: its native build is for Node ≤ 20).
const serverNode = values.node ?? process.execPath;
const serverNodeVersion = spawnSync(serverNode, ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (!serverNodeVersion) throw new Error(`--node ${serverNode}: not a Node binary that runs here`);
const processes = Number(values.processes);
// The server's open-files limit bounds "as many as fit": one descriptor per socket, plus a margin.
const maxConnections = Number(values['max-connections'] ?? fileLimit() - 300);
let list = scenarios({ quick: values.quick, maxConnections });
if (values.only) {
  const only = values.only.split(',');
  list = list.filter((scenario) => only.includes(scenario.name));
}
if (targets.includes('soketi')) ensureSoketi(log);
const profileDir = values.profile
  ? `${workDir}/profiles/${new Date().toISOString().replaceAll(':', '-')}`
  : undefined;
if (profileDir) mkdirSync(profileDir, { recursive: true });

const startedAt = new Date();
const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memory_gib: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  server_node: serverNodeVersion,
  herald_transport: transport,
  os: `${os.type()} ${os.release()}`,
  pinned: hasTaskset
    ? `server on core ${values['server-cpu']}, load on core ${values['load-cpu']}`
    : 'not pinned',
  open_files: fileLimit(),
  load_processes: processes,
};
log(
  `${targets.join(', ')} · ${list.length} scenarios · ${values.quick ? 'quick' : 'full'} · ${machine.pinned} · ` +
    `servers on Node ${serverNodeVersion}, Herald's transport ${transport}` +
    (values.bin ? `, Herald from ${values.bin}` : ''),
);

const results = [];
for (const [index, scenario] of list.entries()) {
  // Alternate the order of the targets from one scenario to the next.
  const order = targets.map((_, i) => targets[(i + index) % targets.length]);
  for (const name of order) {
    const background = await waitForQuiet();
    const t0 = performance.now();
    let row;
    let target;
    try {
      target = await startTarget(name, {
        cpu: values['server-cpu'],
        label: `${scenario.name}-${name}`,
        profileDir,
        node: serverNode,
        transport,
        bin: values.bin,
      });
      const figures = await withTimeout(scenario.run(target, { processes, log }), 300_000, scenario.name);
      row = { scenario: scenario.name, target: name, ...figures };
      // Which transport a Herald target really ran, from its start-up line.
      const ran = name.startsWith('herald') ? transportOf(target.logFile) : undefined;
      if (ran) row.transport = ran;
      // /proc's syscw counts write(2) and writev(2), not send(2), which uWS's sockets use (Herald on uws, the bare-uWS
      // server, soketi): for them writes per delivery would count something else (log lines), so it is left out.
      if (name === 'soketi' || name === 'ceiling' || row.transport === 'uws') delete row.deliveries_per_write;
      // The silent receiver's count shows the webhooks really went out during the run.
      const hooks = target.webhookRequests?.();
      if (hooks !== undefined) row.webhook_requests = hooks;
      // The watching console's count shows it really read the live log during the run.
      const records = target.consoleRecords?.();
      if (records !== undefined) row.console_records = records;
    } catch (error) {
      row = { scenario: scenario.name, target: name, error: String(error?.message ?? error) };
      log(`${scenario.name} on ${name} failed: ${row.error}${target ? ` (log: ${target.logFile})` : ''}`);
    } finally {
      await target?.stop();
    }
    row.background_cpu = background;
    row.wall_s = Number(((performance.now() - t0) / 1000).toFixed(1));
    results.push(row);
    console.log(JSON.stringify(row));
    console.log(tableRow(scenario, row));
  }
}

/** `uws` or `portable`, from the `Transport: …` line a Herald server logged at start-up. */
function transportOf(logFile) {
  try {
    return /^Transport: (\w+)/m.exec(readFileSync(logFile, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The share of both cores busy with other work over 0.5 s (/proc/stat), before a target starts. */
async function backgroundBusy() {
  const sample = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + fields[4];
    return { idle, total: fields.reduce((a, b) => a + b, 0) };
  };
  const a = sample();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const b = sample();
  return Math.round(100 * (1 - (b.idle - a.idle) / Math.max(1, b.total - a.total)) || 0);
}

/**
 * The machine is shared: wait (up to --quiet-wait seconds) until other work uses under 25% of it, and record
 * how busy it was, so a noisy figure can be told apart.
 */
async function waitForQuiet() {
  const deadline = performance.now() + Number(values['quiet-wait'] ?? (values.quick ? 0 : 20)) * 1000;
  let busy = await backgroundBusy();
  while (busy > 25 && performance.now() < deadline) busy = await backgroundBusy();
  if (busy > 25) log(`the machine is busy with other work (${busy}% of both cores); figures may be noisy`);
  return busy;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function tableRow(scenario, row) {
  if (row.error) return `| ${row.scenario} | ${row.target} | error: ${row.error} |`;
  return `| ${row.scenario} | ${row.target} | ${scenario.figures.map((key) => `${key}=${row[key]}`).join(' · ')} |`;
}

function find(scenario, target) {
  return results.find((row) => row.scenario === scenario && row.target === target && !row.error);
}

function ratio(a, b) {
  if (typeof a !== 'number' || typeof b !== 'number' || b === 0) return '–';
  return `${(a / b).toFixed(2)}×`;
}

// The summary: each figure, per target, with the ratios of the pairs both run here.
const RATIOS = [
  ['Herald/soketi', 'herald', 'soketi'],
  ['Herald/ceiling', 'herald', 'ceiling'],
  ['Herald/ceiling-ws', 'herald', 'ceiling-ws'],
  ['portable/uws', 'herald-portable', 'herald'],
  ['portable/soketi', 'herald-portable', 'soketi'],
  ['portable/ceiling-ws', 'herald-portable', 'ceiling-ws'],
  ['webhooks/plain', 'herald-webhooks', 'herald'],
  ['history/plain', 'herald-history', 'herald'],
  ['history/plain portable', 'herald-history-portable', 'herald-portable'],
  ['console/plain', 'herald-console', 'herald'],
].filter(([, of, against]) => targets.includes(of) && targets.includes(against));
const lines = [];
const header = ['scenario', 'figure', ...targets, ...RATIOS.map(([label]) => label)];
lines.push(`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`);
for (const scenario of list) {
  for (const key of scenario.figures) {
    const cells = [scenario.name, key];
    for (const target of targets) cells.push(String(find(scenario.name, target)?.[key] ?? '–'));
    for (const [, of, against] of RATIOS)
      cells.push(ratio(find(scenario.name, of)?.[key], find(scenario.name, against)?.[key]));
    lines.push(`| ${cells.join(' | ')} |`);
  }
}

// The issues' targets, as ratios measured in this run: uws against soketi, portable against the bare-ws ceiling.
const checks = [];
function check(label, scenario, key, op, bound, of = 'herald', against = 'soketi') {
  const a = find(scenario, of)?.[key];
  const b = find(scenario, against)?.[key];
  if (typeof a !== 'number' || typeof b !== 'number' || b === 0) return;
  const r = a / b;
  const met = op === '>=' ? r >= bound : r <= bound;
  checks.push(
    `| ${label} | ${of}/${against} | ${r.toFixed(2)}× | ${op} ${bound}× | ${met ? 'met' : 'MISSED'} |`,
  );
}
/** The transport a Herald target ran in this run (from its start-up line). */
const ranOn = (target) => results.find((row) => row.target === target && row.transport)?.transport;
if (ranOn('herald') !== 'portable') {
  check('fan-out 1k deliveries/s', 'fanout-1k', 'deliveries_s', '>=', 8);
  check('fan-out 5k deliveries/s', 'fanout-5k', 'deliveries_s', '>=', 8);
  check('REST triggers/s', 'rest', 'req_s', '>=', 2.5);
  check('memory per idle subscribed connection', 'idle', 'kib_per_conn', '<=', 0.4);
  check('memory per idle subscribed connection (max)', 'idle-max', 'kib_per_conn', '<=', 0.4);
  check('presence joins/s', 'presence', 'joins_s', '>=', 1.5);
  check('fixed-rate fan-out p99', 'fanout-rate', 'p99_ms', '<=', 0.8);
  check('client events deliveries/s', 'client-events', 'deliveries_s', '>=', 1);
  // Where the load core is the bottleneck, the same targets on what each server does per second of its own CPU.
  check('fan-out 1k deliveries per server CPU-second', 'fanout-1k', 'deliveries_per_cpu_s', '>=', 8);
  check('fan-out 5k deliveries per server CPU-second', 'fanout-5k', 'deliveries_per_cpu_s', '>=', 8);
  check('REST triggers per server CPU-second', 'rest', 'req_per_cpu_s', '>=', 2.5);
  check('presence joins per server CPU-second', 'presence', 'joins_per_cpu_s', '>=', 1.5);
  check('client events per server CPU-second', 'client-events', 'deliveries_per_cpu_s', '>=', 1);
  check('connection rate', 'idle', 'conns_per_s', '>=', 1);
}
// A console watching the busiest app keeps fan-out at 0.9× of Herald without one (issue 28).
check(
  'fan-out 1k with a console watching',
  'fanout-1k',
  'deliveries_s',
  '>=',
  0.9,
  'herald-console',
  'herald',
);
check(
  'fan-out 5k with a console watching',
  'fanout-5k',
  'deliveries_s',
  '>=',
  0.9,
  'herald-console',
  'herald',
);
check(
  'fan-out 1k per CPU-second, console watching',
  'fanout-1k',
  'deliveries_per_cpu_s',
  '>=',
  0.9,
  'herald-console',
  'herald',
);
// The portable transport stays at the ceiling of node:http + ws.
const portableTargets = ['herald-portable', ...(ranOn('herald') === 'portable' ? ['herald'] : [])];
const PORTABLE_TARGETS = [
  ['portable fan-out 1k deliveries/s', 'fanout-1k', 'deliveries_s', '>=', 0.9],
  ['portable fan-out 5k deliveries/s', 'fanout-5k', 'deliveries_s', '>=', 0.9],
  ['portable fan-out 1k per server CPU-second', 'fanout-1k', 'deliveries_per_cpu_s', '>=', 0.9],
  ['portable fan-out 5k per server CPU-second', 'fanout-5k', 'deliveries_per_cpu_s', '>=', 0.9],
  ['portable memory per idle subscribed connection', 'idle', 'kib_per_conn', '<=', 0.8],
  ['portable memory per idle connection (max)', 'idle-max', 'kib_per_conn', '<=', 0.8],
];
for (const of of portableTargets)
  for (const [label, scenario, key, op, bound] of PORTABLE_TARGETS)
    check(label, scenario, key, op, bound, of, 'ceiling-ws');
// Issue 26: channel history on costs at most 20 % of fan-out throughput on one node, on either transport.
for (const [of, against] of [
  ['herald-history', 'herald'],
  ['herald-history-portable', 'herald-portable'],
]) {
  check('history on: fan-out 1k deliveries/s', 'fanout-1k', 'deliveries_s', '>=', 0.8, of, against);
  check('history on: fan-out 5k deliveries/s', 'fanout-5k', 'deliveries_s', '>=', 0.8, of, against);
  check(
    'history on: fan-out 1k per server CPU-second',
    'fanout-1k',
    'deliveries_per_cpu_s',
    '>=',
    0.8,
    of,
    against,
  );
  check(
    'history on: fan-out 5k per server CPU-second',
    'fanout-5k',
    'deliveries_per_cpu_s',
    '>=',
    0.8,
    of,
    against,
  );
}
const lost = results.filter(
  (row) =>
    (row.target === 'herald' || row.target === 'herald-history') &&
    ((row.delivery_ratio !== undefined && row.delivery_ratio < 1) ||
      (row.member_added_ratio !== undefined && row.member_added_ratio < 1)),
);
if (targets.includes('herald')) {
  checks.push(
    `| nothing lost (Herald: every delivery_ratio and member_added_ratio 1.0) | herald | – | = 1.0 | ${lost.length ? `MISSED (${lost.map((r) => r.scenario).join(', ')})` : 'met'} |`,
  );
}

console.log(`\n## Results (${startedAt.toISOString()}, ${values.quick ? 'quick' : 'full'})\n`);
console.log(lines.join('\n'));
if (checks.length) {
  console.log('\n| target | ratio | measured | wanted | |\n|---|---|---:|---:|---|');
  console.log(checks.join('\n'));
}
console.log(`\nmachine: ${JSON.stringify(machine)}`);
const out = values.out ?? `${workDir}/last-run.json`;
mkdirSync(workDir, { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ startedAt, argv: process.argv.slice(2), machine, results, summary: lines, checks }, null, 2)}\n`,
);
log(`wrote ${out}${profileDir ? `; CPU profiles (<scenario>-<target>.cpuprofile) in ${profileDir}` : ''}`);
process.exit(0);
