// Summarises a V8 .cpuprofile (from `node bench/run.mjs --profile`): the functions with the most self time, and
// the most inclusive time, with their files, as shares of the sampled time. With `--per N` (the deliveries, requests…
// the profiled run served) each row also gives its time per unit in µs, which compares two servers' profiles on the
// same work whatever their rates were.
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--match realtime-server] [--per 1000000]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, match: { type: 'string' }, per: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const top = Number(values.top);
const per = values.per === undefined ? undefined : Number(values.per);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Each sample's time is the delta to the next sample.
const selfTime = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfTime.set(profile.samples[i], (selfTime.get(profile.samples[i]) ?? 0) + dt);
  total += dt;
}

const label = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/.*\/(packages|apps|node_modules)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
};

const self = new Map();
const inclusive = new Map();
for (const [id, time] of selfTime) {
  const node = byId.get(id);
  self.set(label(node), (self.get(label(node)) ?? 0) + time);
  const seen = new Set();
  for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
    const key = label(byId.get(cursor));
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + time);
  }
}

// Time the process spent waiting: the rest is what it worked.
const idle = self.get('(idle)') ?? 0;

const show = (title, map) => {
  const busy = `${((total - idle) / 1e6).toFixed(2)} s busy`;
  const unit = per ? `, µs per unit of ${per}: ${((total - idle) / per).toFixed(3)} busy` : '';
  console.log(`\n${title} (of ${(total / 1e6).toFixed(2)} s sampled, ${busy}${unit})`);
  const rows = [...map].filter(([key]) => !values.match || key.includes(values.match));
  rows.sort((a, b) => b[1] - a[1]);
  for (const [key, time] of rows.slice(0, top)) {
    const perUnit = per ? `${(time / per).toFixed(3).padStart(8)} µs  ` : '';
    console.log(
      `${((100 * time) / total).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(6)} ms  ${perUnit}${key}`,
    );
  }
};
show('self time', self);
show('inclusive time', inclusive);
