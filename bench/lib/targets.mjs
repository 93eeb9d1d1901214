// The servers under test, each started the same way: its own process, `ulimit -n` raised, pinned to the server
// core with taskset, bound to 127.0.0.1 on a free port, with every limit and rate limit raised. Output goes to a
// log file under bench/targets/logs/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const APP = { id: 'bench', key: 'bench-key', secret: 'bench-secret' };
// `herald-portable` is the same server forced onto the portable transport (node:http + ws), as it runs wherever no
// native uWebSockets.js build loads.
// `herald-webhooks` is Herald with every webhook event type on, sent to a receiver that never answers (the worst
// receiver: each request waits for its timeout, then retries), to show what webhooks cost the hot paths.
// `herald-history` and `herald-history-portable` are `herald` and `herald-portable` with the app's channel history on
// (`history: { enabled: true }`: every event gets a serial and is kept in memory), to show what history costs fan-out.
// `ceiling` is the bare uWebSockets.js server (ceiling.mjs), `ceiling-ws` the bare node:http + ws one (ceiling-ws.mjs):
// what each transport could reach at most on this machine.
// `herald-console` is Herald with the operator console on and one console watching the bench app's live log over
// server-sent events for the whole run (every debug record read and counted), to show what a watching console costs.
export const TARGETS = [
  'herald',
  'herald-portable',
  'herald-webhooks',
  'herald-history',
  'herald-history-portable',
  'herald-console',
  'soketi',
  'ceiling',
  'ceiling-ws',
];
const PORTABLE = new Set(['herald-portable', 'herald-history-portable']);
const HISTORY = new Set(['herald-history', 'herald-history-portable']);
const CONSOLE_TOKEN = 'bench-console-token-0123456789';

const benchDir = fileURLToPath(new URL('..', import.meta.url));
const rootDir = fileURLToPath(new URL('../..', import.meta.url));
export const workDir = `${benchDir}targets`;
const soketiDir = `${workDir}/soketi`;
export const SOKETI_VERSION = '1.6.1';
const UWS_OVERRIDE = 'npm:@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0';

export const hasTaskset = spawnSync('taskset', ['--version']).status === 0;

/** The highest open-files limit this shell may set (the hard limit, or 65536 when it is higher). */
export function fileLimit() {
  const hard = spawnSync('bash', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  return hard === 'unlimited' ? 65536 : Math.min(65536, Number(hard));
}

/** Installs soketi from the npm registry into bench/targets/soketi (not a workspace member) unless present. */
export function ensureSoketi(log = console.error) {
  const bin = `${soketiDir}/node_modules/@soketi/soketi/bin/server.js`;
  if (existsSync(bin)) return bin;
  mkdirSync(soketiDir, { recursive: true });
  const manifest = {
    name: 'herald-bench-soketi',
    private: true,
    description: 'soketi for the Herald benchmark; installed by bench/lib/targets.mjs, git-ignored.',
    dependencies: { '@soketi/soketi': SOKETI_VERSION },
    // soketi pins uWebSockets.js to a GitHub tag built for Node <= 18; this npm build has Node 20 binaries.
    overrides: { 'uWebSockets.js': UWS_OVERRIDE },
  };
  writeFileSync(`${soketiDir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`installing @soketi/soketi@${SOKETI_VERSION} into ${soketiDir} (npm install, about a minute)…`);
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: soketiDir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0 || !existsSync(bin))
    throw new Error(`npm install of soketi failed (${result.status})`);
  return bin;
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Signs in to a Herald console and reads the bench app's live log (server-sent events) until stopped, as a browser
 * would; returns the number of debug records read so far and a stop function.
 */
async function watchConsole(port) {
  const base = `http://127.0.0.1:${port}/console`;
  const signIn = await fetch(`${base}?token=${CONSOLE_TOKEN}`, { redirect: 'manual' });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  if (signIn.status !== 303 || !cookie) throw new Error(`console sign-in answered ${signIn.status}`);
  const abort = new AbortController();
  const response = await fetch(`${base}/api/apps/${APP.id}/log`, {
    headers: { cookie },
    signal: abort.signal,
  });
  if (!response.ok || !response.body) throw new Error(`console live log answered ${response.status}`);
  let records = 0;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      records += decoder.decode(value, { stream: true }).split('event: debug').length - 1;
    }
  })();
  return { records: () => records, stop: () => abort.abort() };
}

/** A webhook receiver that accepts connections and never answers; returns its URL and a stop function. */
async function startSilentReceiver() {
  const { createServer: createHttpServer } = await import('node:http');
  const held = new Set();
  let requests = 0;
  const server = createHttpServer((req, res) => {
    requests += 1;
    held.add(res);
    req.resume();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    requests: () => requests,
    stop: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

export function heraldConfig(port, webhookUrl, options = {}) {
  const webhooks = webhookUrl
    ? [
        {
          url: webhookUrl,
          event_types: [
            'channel_occupied',
            'channel_vacated',
            'member_added',
            'member_removed',
            'client_event',
            'cache_miss',
          ],
        },
      ]
    : [];
  return {
    default: 'herald',
    ...(options.console ? { console: { enabled: true, token: CONSOLE_TOKEN } } : {}),
    servers: {
      herald: {
        host: '127.0.0.1',
        port,
        max_request_size: 1_000_000,
        ping_interval: 120,
        activity_timeout: 120,
      },
    },
    applications: [
      {
        ...APP,
        name: 'Bench',
        max_connections: 10_000_000,
        enable_client_messages: true,
        accept_client_events_from: 'all',
        activity_timeout: 120,
        ping_interval: 120,
        max_message_size: 100_000,
        max_presence_members_per_channel: 1_000_000,
        max_presence_member_size_in_kb: 10,
        max_event_payload_in_kb: 100,
        max_event_batch_size: 100,
        max_event_channels_at_once: 100,
        webhooks,
        ...(options.history ? { history: { enabled: true } } : {}),
      },
    ],
    rate_limiter: { enabled: false },
    logging: { enabled: true, debug_enabled: false },
  };
}

export function soketiEnv(port) {
  return {
    SOKETI_HOST: '127.0.0.1',
    SOKETI_PORT: String(port),
    SOKETI_DEBUG: 'false',
    SOKETI_MODE: 'full',
    SOKETI_ADAPTER_DRIVER: 'local',
    SOKETI_RATE_LIMITER_DRIVER: 'local',
    SOKETI_METRICS_ENABLED: 'false',
    SOKETI_DEFAULT_APP_ID: APP.id,
    SOKETI_DEFAULT_APP_KEY: APP.key,
    SOKETI_DEFAULT_APP_SECRET: APP.secret,
    SOKETI_DEFAULT_APP_ENABLED: 'true',
    SOKETI_DEFAULT_APP_ENABLE_CLIENT_MESSAGES: 'true',
    // -1 is soketi's "no limit" for connections and every per-second rate limit.
    SOKETI_DEFAULT_APP_MAX_CONNS: '-1',
    SOKETI_DEFAULT_APP_MAX_BACKEND_EVENTS_PER_SEC: '-1',
    SOKETI_DEFAULT_APP_MAX_CLIENT_EVENTS_PER_SEC: '-1',
    SOKETI_DEFAULT_APP_MAX_READ_REQ_PER_SEC: '-1',
    SOKETI_PRESENCE_MAX_MEMBERS: '1000000',
    SOKETI_PRESENCE_MAX_MEMBER_SIZE: '10',
    SOKETI_EVENT_MAX_SIZE_IN_KB: '100',
    SOKETI_EVENT_MAX_BATCH_SIZE: '100',
    SOKETI_HTTP_ACCEPT_TRAFFIC_MEMORY_THRESHOLD: '100',
    SOKETI_SHUTDOWN_GRACE_PERIOD: '0',
  };
}

export async function waitForPort(port, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before listening`);
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not listening on ${port} after ${timeoutMs} ms`);
}

/**
 * Starts one target and resolves once it accepts connections.
 * Herald and the ceilings run on `options.node` (default: this Node); soketi always runs on this Node, since its
 * uWebSockets.js build has Node ≤ 20 binaries only. `options.transport` is the `herald` target's REALTIME_TRANSPORT
 * (default `auto`: native where a build loads); `uws` stops the target where none loads rather than measure the
 * other transport.
 * @param {'herald'|'herald-portable'|'herald-webhooks'|'herald-history'|'herald-history-portable'|'herald-console'|'soketi'|'ceiling'|'ceiling-ws'} name
 * @param {{ cpu?: string, profileDir?: string, label?: string, node?: string, transport?: 'auto'|'uws'|'portable', bin?: string, nodeArgs?: string[] }} options
 *   `bin`: another build's `apps/realtime/dist/bin.js` for the Herald targets (a before/after in one sitting);
 *   `nodeArgs`: Node flags for the target's process, e.g. a preloaded probe;
 *   `profileDir`: start the server with `--cpu-prof` (any target; the profile is written when it exits on SIGTERM)
 */
export async function startTarget(name, options = {}) {
  const port = await freePort();
  mkdirSync(`${workDir}/logs`, { recursive: true });
  const node = [name === 'soketi' ? process.execPath : (options.node ?? process.execPath)];
  // One profile per server process, named after its run (`<scenario>-<target>.cpuprofile` from run.mjs's label).
  if (options.profileDir) {
    node.push('--cpu-prof', `--cpu-prof-dir=${options.profileDir}`);
    if (options.label) node.push(`--cpu-prof-name=${options.label}.cpuprofile`);
  }
  if (options.nodeArgs) node.push(...options.nodeArgs);
  let args;
  let env = { ...process.env };
  let receiver;
  const herald = name.startsWith('herald');
  if (herald) {
    receiver = name === 'herald-webhooks' ? await startSilentReceiver() : undefined;
    const configFile = `${workDir}/herald-bench.json`;
    writeFileSync(
      configFile,
      JSON.stringify(
        heraldConfig(port, receiver?.url, { history: HISTORY.has(name), console: name === 'herald-console' }),
        null,
        2,
      ),
    );
    const bin = options.bin ?? `${rootDir}apps/realtime/dist/bin.js`;
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm build\` first`);
    args = [...node, bin, 'server', '--host', '127.0.0.1', '--port', String(port), '--config', configFile];
    env.NODE_ENV = 'production';
    env.REALTIME_TRANSPORT = PORTABLE.has(name) ? 'portable' : (options.transport ?? 'auto');
  } else if (name === 'soketi') {
    const bin = ensureSoketi();
    args = [...node, bin, 'start'];
    env = { ...env, ...soketiEnv(port) };
  } else if (name === 'ceiling' || name === 'ceiling-ws') {
    args = [...node, `${benchDir}${name}.mjs`, String(port)];
  } else {
    throw new Error(`unknown target ${name}`);
  }
  const pin = hasTaskset ? `taskset -c ${options.cpu ?? '0'} ` : '';
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const logFile = `${workDir}/logs/${options.label ?? name}.log`;
  const child = spawn('bash', ['-c', `ulimit -n ${fileLimit()} && exec ${pin}${quoted} >'${logFile}' 2>&1`], {
    cwd: name === 'soketi' ? soketiDir : rootDir,
    env,
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    // A generous start-up limit: on a machine shared with other test runs a server took over 20 s to listen.
    await waitForPort(port, child, 60_000);
  } catch (error) {
    // Nothing else holds this process: one that did not come up in time is stopped here, not left running.
    child.kill('SIGKILL');
    await receiver?.stop();
    throw error;
  }
  const watcher = name === 'herald-console' ? await watchConsole(port) : undefined;
  return {
    name,
    port,
    pid: child.pid,
    logFile,
    url: `ws://127.0.0.1:${port}/app/${APP.key}?protocol=7&client=herald-bench&version=1.0`,
    restBase: `http://127.0.0.1:${port}`,
    rssKiB: () => readRssKiB(child.pid),
    cpuSeconds: () => readCpuSeconds(child.pid),
    cpuTimes: () => readCpuTimes(child.pid),
    writeCalls: () => readWriteCalls(child.pid),
    alive: () => child.exitCode === null,
    /** Requests the silent webhook receiver got (herald-webhooks only). */
    webhookRequests: () => receiver?.requests(),
    /** Debug records the watching console read (herald-console only). */
    consoleRecords: () => watcher?.records(),
    async stop() {
      watcher?.stop();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(timer);
      }
      await receiver?.stop();
    },
  };
}

export function readRssKiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

export function readCpuSeconds(pid) {
  const { user, system } = readCpuTimes(pid);
  return user + system;
}

/** The process's CPU seconds so far, in user space and in the kernel (its system calls), NaN where unreadable. */
export function readCpuTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** The process's write-family system calls so far (`syscw` of /proc/<pid>/io: write, writev…), NaN where unreadable. */
export function readWriteCalls(pid) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/syscw: (\d+)/.exec(io)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/**
 * Runs the calling script again pinned to the load core under taskset, with the open-files limit raised, and exits
 * with its status; returns at once in that child (or where taskset is missing).
 */
export function reexecPinned(scriptUrl, loadCpu) {
  if (!hasTaskset || process.env.HERALD_BENCH_CHILD) return;
  const self = fileURLToPath(scriptUrl);
  const quoted = [process.execPath, self, ...process.argv.slice(2)].map(
    (a) => `'${a.replaceAll("'", "'\\''")}'`,
  );
  const result = spawnSync(
    'bash',
    ['-c', `ulimit -n ${fileLimit()} && exec taskset -c ${loadCpu} ${quoted.join(' ')}`],
    {
      stdio: 'inherit',
      env: { ...process.env, HERALD_BENCH_CHILD: '1' },
    },
  );
  process.exit(result.status ?? 1);
}
