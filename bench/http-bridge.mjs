// Measures the uWS -> fetch bridge that serves Herald's REST API on the WebSocket port, against a direct uWS
// handler (the ceiling) and the same hono app on node:http. Each target runs in its own process pinned to
// core 0 when taskset exists; autocannon runs here (pin it to core 1 with `taskset -c 1 pnpm bench:bridge`).
// Usage: node http-bridge.mjs [--seconds 5] [--connections 64]
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '64' } },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
const target = fileURLToPath(new URL('./bridge-target.mjs', import.meta.url));
const pin = spawnSync('taskset', ['--version']).status === 0;

function start(mode) {
  const command = pin ? 'taskset' : process.execPath;
  const args = pin ? ['-c', '0', process.execPath, target, mode] : [target, mode];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /ready (\d+)/.exec(String(chunk));
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
  });
}

const body = JSON.stringify({ name: 'tick', channel: 'bench', data: '{"n":1}' });
const scenarios = [
  { name: 'GET /up', request: { method: 'GET', path: '/up' } },
  {
    name: 'POST /apps/bench/events',
    request: {
      method: 'POST',
      path: '/apps/bench/events',
      headers: { authorization: 'Bearer bench-secret', 'content-type': 'application/json' },
      body,
    },
  },
];

const rows = [];
for (const scenario of scenarios) {
  for (const mode of ['uws-raw', 'uws-bridge', 'node-hono']) {
    const { child, port } = await start(mode);
    const { path, ...request } = scenario.request;
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      connections,
      duration,
      ...request,
    });
    child.kill('SIGTERM');
    const row = {
      scenario: scenario.name,
      target: mode,
      requestsPerSecond: Math.round(result.requests.average),
      p50ms: result.latency.p50,
      p99ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
}

console.log('\n| scenario | target | req/s | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(
    `| ${row.scenario} | ${row.target} | ${row.requestsPerSecond} | ${row.p50ms} | ${row.p99ms} | ${row.non2xx} |`,
  );
}
process.exit(0);
