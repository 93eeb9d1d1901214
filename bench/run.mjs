#!/usr/bin/env node
// Herald's benchmark. `pnpm bench` runs Herald alone; `pnpm bench:compare` runs Herald, soketi and the uWS
// ceiling, alternating, and prints each figure with the ratios Herald/soketi and Herald/ceiling.
// Usage: node bench/run.mjs [--compare] [--quick] [--targets herald,soketi,ceiling] [--only fanout-1k,rest]
//                           [--profile] [--processes 4] [--max-connections N] [--out file.json]
// The run re-executes itself under `bash -c 'ulimit -n … && exec taskset -c 1 node …'`: the load on core 1,
// each server on core 0.
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
  },
});

reexecPinned(import.meta.url, values['load-cpu']);

const log = (message) => console.error(`[bench] ${message}`);
const targets = values.targets ? values.targets.split(',') : values.compare ? TARGETS : ['herald'];
for (const target of targets) if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}`);
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
  os: `${os.type()} ${os.release()}`,
  pinned: hasTaskset
    ? `server on core ${values['server-cpu']}, load on core ${values['load-cpu']}`
    : 'not pinned',
  open_files: fileLimit(),
  load_processes: processes,
};
log(
  `${targets.join(', ')} · ${list.length} scenarios · ${values.quick ? 'quick' : 'full'} · ${machine.pinned}`,
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
        profileDir: name === 'herald' ? profileDir : undefined,
      });
      const figures = await withTimeout(scenario.run(target, { processes, log }), 300_000, scenario.name);
      row = { scenario: scenario.name, target: name, ...figures };
      // The silent receiver's count shows the webhooks really went out during the run.
      const hooks = target.webhookRequests?.();
      if (hooks !== undefined) row.webhook_requests = hooks;
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

// The summary: each figure, per target, with the ratios.
const lines = [];
const header = ['scenario', 'figure', ...targets];
if (targets.includes('herald') && targets.includes('soketi')) header.push('Herald/soketi');
if (targets.includes('herald') && targets.includes('ceiling')) header.push('Herald/ceiling');
if (targets.includes('herald-portable') && targets.includes('herald')) header.push('portable/uws');
if (targets.includes('herald-portable') && targets.includes('soketi')) header.push('portable/soketi');
if (targets.includes('herald-webhooks') && targets.includes('herald')) header.push('webhooks/plain');
lines.push(`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`);
for (const scenario of list) {
  for (const key of scenario.figures) {
    const cells = [scenario.name, key];
    for (const target of targets) cells.push(String(find(scenario.name, target)?.[key] ?? '–'));
    const herald = find(scenario.name, 'herald')?.[key];
    if (header.includes('Herald/soketi')) cells.push(ratio(herald, find(scenario.name, 'soketi')?.[key]));
    if (header.includes('Herald/ceiling')) cells.push(ratio(herald, find(scenario.name, 'ceiling')?.[key]));
    const portable = find(scenario.name, 'herald-portable')?.[key];
    if (header.includes('portable/uws')) cells.push(ratio(portable, herald));
    if (header.includes('portable/soketi')) cells.push(ratio(portable, find(scenario.name, 'soketi')?.[key]));
    if (header.includes('webhooks/plain'))
      cells.push(ratio(find(scenario.name, 'herald-webhooks')?.[key], herald));
    lines.push(`| ${cells.join(' | ')} |`);
  }
}

// The issue's targets, as ratios Herald/soketi measured in this run.
const checks = [];
const heraldOf = (scenario, key) => find(scenario, 'herald')?.[key];
const soketiOf = (scenario, key) => find(scenario, 'soketi')?.[key];
function check(label, scenario, key, op, bound) {
  const h = heraldOf(scenario, key);
  const s = soketiOf(scenario, key);
  if (typeof h !== 'number' || typeof s !== 'number' || s === 0) return;
  const r = h / s;
  const met = op === '>=' ? r >= bound : r <= bound;
  checks.push(`| ${label} | ${r.toFixed(2)}× | ${op} ${bound}× | ${met ? 'met' : 'MISSED'} |`);
}
check('fan-out 1k deliveries/s', 'fanout-1k', 'deliveries_s', '>=', 6);
check('fan-out 5k deliveries/s', 'fanout-5k', 'deliveries_s', '>=', 6);
check('REST triggers/s', 'rest', 'req_s', '>=', 2.5);
check('memory per idle subscribed connection', 'idle', 'kib_per_conn', '<=', 0.4);
check('memory per idle subscribed connection (max)', 'idle-max', 'kib_per_conn', '<=', 0.4);
check('presence joins/s', 'presence', 'joins_s', '>=', 1.5);
check('fixed-rate fan-out p99', 'fanout-rate', 'p99_ms', '<=', 0.8);
check('client events deliveries/s', 'client-events', 'deliveries_s', '>=', 1);
// Where the load core is the bottleneck, the same targets on what each server does per second of its own CPU.
check('fan-out 1k deliveries per server CPU-second', 'fanout-1k', 'deliveries_per_cpu_s', '>=', 6);
check('fan-out 5k deliveries per server CPU-second', 'fanout-5k', 'deliveries_per_cpu_s', '>=', 6);
check('REST triggers per server CPU-second', 'rest', 'req_per_cpu_s', '>=', 2.5);
check('presence joins per server CPU-second', 'presence', 'joins_per_cpu_s', '>=', 1.5);
check('client events per server CPU-second', 'client-events', 'deliveries_per_cpu_s', '>=', 1);
check('connection rate', 'idle', 'conns_per_s', '>=', 1);
const lost = results.filter(
  (row) =>
    row.target === 'herald' &&
    ((row.delivery_ratio !== undefined && row.delivery_ratio < 1) ||
      (row.member_added_ratio !== undefined && row.member_added_ratio < 1)),
);
if (targets.includes('herald')) {
  checks.push(
    `| nothing lost (Herald: every delivery_ratio and member_added_ratio 1.0) | – | = 1.0 | ${lost.length ? `MISSED (${lost.map((r) => r.scenario).join(', ')})` : 'met'} |`,
  );
}

console.log(`\n## Results (${startedAt.toISOString()}, ${values.quick ? 'quick' : 'full'})\n`);
console.log(lines.join('\n'));
if (checks.length) {
  console.log('\n| target | Herald/soketi | wanted | |\n|---|---:|---:|---|');
  console.log(checks.join('\n'));
}
console.log(`\nmachine: ${JSON.stringify(machine)}`);
const out = values.out ?? `${workDir}/last-run.json`;
mkdirSync(workDir, { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ startedAt, argv: process.argv.slice(2), machine, results, summary: lines, checks }, null, 2)}\n`,
);
log(`wrote ${out}${profileDir ? `; Herald CPU profiles in ${profileDir}` : ''}`);
process.exit(0);
