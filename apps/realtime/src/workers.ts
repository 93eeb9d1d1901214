import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Logger } from '@herald/realtime-server';
import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';

// `realtime server --workers N`: the parent (node:cluster's primary) forks N copies of the bin, each a full server
// and cluster node on the same port. uWS binds with SO_REUSEPORT itself (its default on Linux); node:http binds its
// own SO_REUSEPORT socket where Node has `reusePort` and goes through the primary's round-robin otherwise. The
// parent serves no socket: it prints the banner, forwards signals and restarts a worker that crashes.

/** Where a worker learns its place: set by the parent in the worker's environment. */
const ROLE_VARIABLE = 'HERALD_REALTIME_WORKER';

/** What the parent tells one worker. */
export interface WorkerRole {
  /** 1-based. */
  readonly index: number;
  /** Distinct per worker and per restart, so a replaced worker's cluster entries are reaped like a dead node's. */
  readonly nodeId: string;
  /** The port every worker binds (a free one chosen by the parent when the config says 0). */
  readonly port: number;
}

/** The messages a worker sends its parent. */
type FromWorker = {
  type: 'ready';
  port: number;
  transport: string;
  apps: readonly ServedApp[];
  /** The metrics port, when `metrics.port` is set (shared by every worker). */
  metricsPort?: number | undefined;
};
/** The messages the parent sends a worker. */
type ToWorker = { type: 'stop' } | { type: 'stop-now' };

/** This process's role when the parent forked it as a worker; undefined in a plain or parent process. */
export function workerRole(env: NodeJS.ProcessEnv = process.env): WorkerRole | undefined {
  const raw = env[ROLE_VARIABLE];
  if (!cluster.isWorker || raw === undefined) return undefined;
  return JSON.parse(raw) as WorkerRole;
}

/** The config a worker runs: the parent's port and the worker's own node id. */
export function workerConfig(config: RealtimeConfig, role: WorkerRole): RealtimeConfig {
  const settings = config.servers[config.default];
  if (!settings) return config;
  return {
    ...config,
    servers: { ...config.servers, [config.default]: { ...settings, port: role.port } },
    scaling: { ...config.scaling, node_id: role.nodeId },
  };
}

/** Tells the parent this worker listens; called once after start. */
export function reportReady(ready: Omit<FromWorker, 'type'>): void {
  process.send?.({ type: 'ready', ...ready } satisfies FromWorker);
}

/**
 * Calls `stop` when the parent asks (its SIGTERM or Ctrl-C) or goes away; `stopNow` on its second signal.
 * A worker stopping already (it got the terminal's SIGINT itself) ignores the parent's first request.
 */
export function onParentStop(stop: (reason: string) => void, stopNow: () => void): void {
  process.on('message', (message: ToWorker) => {
    if (message?.type === 'stop') stop('parent');
    else if (message?.type === 'stop-now') stopNow();
  });
  // The parent died without a word (SIGKILL): drain and exit rather than serve on unsupervised.
  process.on('disconnect', () => stop('parent gone'));
}

/** How port sharing works for the transport the workers run, for the banner. */
function sharing(transport: string): string {
  if (transport.startsWith('uws')) return 'SO_REUSEPORT, the kernel spreads connections';
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const reusePort = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
  return reusePort
    ? 'SO_REUSEPORT, the kernel spreads connections'
    : "node:cluster's round-robin (this Node has no reusePort)";
}

/** Binds port 0 on the host for a moment to learn a free port every worker then binds. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0 }, () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** What `runWorkers` needs from the command. */
export interface WorkersOptions {
  readonly config: RealtimeConfig;
  /** The command-line arguments of `realtime server`, passed on to every worker. */
  readonly argv: readonly string[];
  readonly logger: Logger;
  /** Prints the banner once every worker listens. */
  readonly started: (ready: {
    port: number;
    transport: string;
    apps: readonly ServedApp[];
    workers: string;
    metricsPort?: number | undefined;
  }) => void;
  /** Called when the parent is about to exit, with its exit code. */
  readonly exit: (code: number) => void;
}

/** Restart delays after a crash: 1 s, doubling to 30 s; a worker that ran a minute resets its count. */
const BACKOFF = { firstMs: 1000, maxMs: 30_000, stableMs: 60_000 } as const;

/**
 * Runs `config.servers[default].workers` worker processes and supervises them. A worker that exits while the
 * parent is not stopping is restarted with backoff; one that exits before every worker of the first start listened
 * (a bad config, the port taken by another program) stops them all and the parent exits 1. SIGTERM and SIGINT drain every worker (each as a
 * single server drains), then the parent exits 0; a second signal stops them at once. SIGHUP is passed on
 * (`realtime restart_server`).
 */
export async function runWorkers(options: WorkersOptions): Promise<void> {
  const { config, logger } = options;
  const settings = config.servers[config.default];
  const count = settings?.workers ?? 1;
  const host = settings?.host ?? '0.0.0.0';
  const port = settings?.port ? settings.port : await freePort(host);
  const base = config.scaling.node_id ?? randomBytes(6).toString('hex');
  cluster.setupPrimary({ exec: process.argv[1] as string, args: ['server', ...options.argv] });

  const workers = new Map<number, Worker>();
  // Per worker slot: how many times it was started (for fresh node ids) and its recent crashes (for backoff).
  const slots = new Map<number, { generation: number; crashes: number; startedAt: number }>();
  const ready = new Set<number>();
  let stopping = false;
  let exitCode = 0;
  let announced = false;

  const finishIfDone = () => {
    if (stopping && workers.size === 0) options.exit(exitCode);
  };
  const stopAll = (message: ToWorker) => {
    for (const worker of workers.values()) if (worker.isConnected()) worker.send(message);
  };

  const fork = (index: number) => {
    const slot = slots.get(index) ?? { generation: 0, crashes: 0, startedAt: 0 };
    const role: WorkerRole = {
      index,
      nodeId: slot.generation === 0 ? `${base}-w${index}` : `${base}-w${index}r${slot.generation}`,
      port,
    };
    slots.set(index, { ...slot, generation: slot.generation + 1, startedAt: Date.now() });
    const worker = cluster.fork({ [ROLE_VARIABLE]: JSON.stringify(role) });
    workers.set(index, worker);
    worker.on('message', (message: FromWorker) => {
      if (message?.type !== 'ready') return;
      ready.add(index);
      if (stopping) worker.send({ type: 'stop' } satisfies ToWorker);
      if (announced) logger.info('worker restarted', { worker: index, pid: worker.process.pid });
      if (announced || ready.size < count) return;
      announced = true;
      const pids = [...workers.values()].map((each) => each.process.pid).join(', ');
      options.started({
        port: message.port,
        transport: message.transport,
        apps: message.apps,
        metricsPort: message.metricsPort,
        workers: `${count} processes (pids ${pids}) on port ${message.port}, each a cluster node (${sharing(message.transport)})`,
      });
    });
    worker.on('exit', (code, signal) => {
      workers.delete(index);
      if (stopping) {
        if (code !== 0) exitCode = 1;
        finishIfDone();
        return;
      }
      if (!announced) {
        // A worker of the first start that stopped: restarting would most likely fail the same way.
        logger.error('worker failed to start; stopping every worker', { worker: index, code, signal });
        stopping = true;
        exitCode = 1;
        stopAll({ type: 'stop' });
        finishIfDone();
        return;
      }
      ready.delete(index);
      const slot = slots.get(index) ?? { generation: 1, crashes: 0, startedAt: 0 };
      const crashes = Date.now() - slot.startedAt >= BACKOFF.stableMs ? 0 : slot.crashes;
      const delay = Math.min(BACKOFF.maxMs, BACKOFF.firstMs * 2 ** crashes);
      slots.set(index, { ...slot, crashes: crashes + 1 });
      logger.warn('worker exited; restarting it', { worker: index, code, signal, delayMs: delay });
      // Not unref'd: when every worker died at once, this timer is what keeps the parent alive until the restart.
      setTimeout(() => {
        if (!stopping) fork(index);
      }, delay);
    });
  };

  const stop = (signal: string) => {
    if (stopping) {
      logger.warn('stopping every worker now', { signal });
      stopAll({ type: 'stop-now' });
      return;
    }
    stopping = true;
    logger.info('shutting down every worker', { signal, workers: workers.size });
    stopAll({ type: 'stop' });
    finishIfDone();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    for (const worker of workers.values()) worker.process.kill('SIGHUP');
  });
  for (let index = 1; index <= count; index++) fork(index);
}
