import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './free-port.js';
import { redisCli } from './internal/redis-cli.js';
import { until } from './until.js';

/** A redis-server a test started itself on a loopback port (never the machine's shared one on 6379). */
export interface RedisProcess {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Kills the process by its PID (SIGKILL) and waits for it to exit; does nothing once it is gone. */
  stop(): Promise<void>;
  /** Starts a fresh (empty) server on the same port, stopping the old one first if it still runs. */
  restart(): Promise<void>;
  /** Stops the process (SIGSTOP): its connections stay open and nothing is answered until `resume`. */
  pause(): void;
  /** Lets a paused process go on (SIGCONT). */
  resume(): void;
}

/** Where and how to start a redis-server. */
export interface RedisOptions {
  /** Extra `redis-server` arguments (`--cluster-enabled yes`, …). */
  readonly args?: readonly string[];
  /** A port of the caller's choosing; a free one by default (and another if that one is taken first). */
  readonly port?: number;
  /** The folder the server runs in (its nodes.conf, if any, goes there). */
  readonly cwd?: string;
  /** How long the server may take to answer PING (30 s by default). */
  readonly limitMs?: number;
}

const ATTEMPTS = 3;

/** Starts a redis-server without persistence on a free port (or `options.port`) and waits until it answers. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisProcess> {
  // A free port can be taken by another process before redis binds it: then the server exits at once, and a new
  // port is tried (never when the caller chose the port).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOn(options.port ?? (await freePort()), options);
    } catch (error) {
      if (options.port !== undefined || attempt >= ATTEMPTS) throw error;
    }
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function startRedisOn(port: number, options: RedisOptions): Promise<RedisProcess> {
  let child: ChildProcess | undefined;
  const launch = async () => {
    const started = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        ...(options.args ?? []),
      ],
      { stdio: 'ignore', cwd: options.cwd },
    );
    child = started;
    const gone = () => started.exitCode !== null || started.signalCode !== null;
    // A server that exits (its port was taken) ends the wait at once instead of at the limit.
    await until(async () => gone() || (await redisCli(port, 'PING').catch(() => '')) === 'PONG', {
      what: `redis-server on port ${port} to answer PING`,
      limitMs: options.limitMs,
    });
    if (gone())
      throw new Error(`redis-server on port ${port} exited (${started.exitCode ?? started.signalCode})`);
  };
  const stop = async () => {
    if (!child) return;
    const current = child;
    child = undefined;
    const running = current.exitCode === null && current.signalCode === null;
    if (running && current.pid !== undefined) process.kill(current.pid, 'SIGKILL');
    await exited(current);
  };
  await launch().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const signal = (name: NodeJS.Signals) => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, name);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop(); // Never two servers for one port, and never one the suite cannot stop.
      await launch();
    },
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
  };
}
