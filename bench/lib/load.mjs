// The parent side of the load: forks the load processes (they inherit this process's core and open-files limit),
// and publishes signed REST triggers.
import { fork } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { signRequest } from '@herald/protocol-core';
import { Histogram } from './histogram.mjs';
import { APP } from './targets.mjs';

const workerPath = new URL('./worker.mjs', import.meta.url);

export class LoadPool {
  /** @param {number} processes @param {(index: number) => object} setupFor */
  static async open(processes, setupFor, { log = () => {}, timeoutMs = 120_000 } = {}) {
    const pool = new LoadPool(processes, log);
    const replies = await pool.all(
      (i) => ({ type: 'setup', worker: i, app: APP, ...setupFor(i) }),
      'ready',
      timeoutMs,
    );
    pool.connected = replies.reduce((sum, reply) => sum + reply.connected, 0);
    pool.failed = replies.reduce((sum, reply) => sum + reply.failed, 0);
    return pool;
  }

  constructor(processes, log) {
    this.progress = new Array(processes).fill(0);
    this.listeners = new Set();
    this.children = Array.from({ length: processes }, (_, i) => {
      const child = fork(workerPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      child.on('message', (message) => {
        if (message.type === 'progress') {
          this.progress[i] = message.received;
          for (const listener of this.listeners) listener();
        } else if (message.type === 'log') {
          log(`load ${i}: ${message.message}`);
        }
      });
      return child;
    });
  }

  /**
   * Times the load processes have slept so far (voluntary context switches, /proc/<pid>/status): a reader that waits
   * for data sleeps, and each of its wake-ups is paid for in the kernel by the server's write that woke it.
   */
  sleeps() {
    let sum = 0;
    for (const child of this.children) {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        sum += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      } catch {
        return Number.NaN;
      }
    }
    return sum;
  }

  /** Frames received by every load process since `start`, as last reported (every 20 ms). */
  received() {
    let sum = 0;
    for (const value of this.progress) sum += value;
    return sum;
  }

  /** Resolves at the next progress report, or after `ms`. */
  nextProgress(ms = 50) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.listeners.add(done);
    });
  }

  /** Sends a message to each process and resolves with each one's reply of type `replyType`. */
  all(makeMessage, replyType, timeoutMs = 30_000) {
    return Promise.all(
      this.children.map(
        (child, i) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`load ${i}: no ${replyType} within ${timeoutMs} ms`)),
              timeoutMs,
            );
            const onExit = (code) => reject(new Error(`load ${i} exited with ${code}`));
            const onMessage = (message) => {
              if (message.type !== replyType) return;
              clearTimeout(timer);
              child.off('message', onMessage);
              child.off('exit', onExit);
              resolve(message);
            };
            child.on('message', onMessage);
            child.once('exit', onExit);
            child.send(makeMessage(i));
          }),
      ),
    );
  }

  /**
   * Resets every process's counters first and only then starts traffic, so no frame caused by one process's
   * traffic reaches another before that one has reset.
   */
  async start() {
    await this.all(() => ({ type: 'reset' }), 'reset');
    this.progress.fill(0);
    for (const child of this.children) child.send({ type: 'start' });
  }

  async stop(timeoutMs = 10_000) {
    try {
      await this.all(() => ({ type: 'stop' }), 'stopped', timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  /** Adds up every process's counters and histograms. */
  async collect() {
    const results = await this.all(() => ({ type: 'collect' }), 'result');
    const total = { received: 0, sent: 0, joins: 0, memberAdded: 0, errors: 0, closedEarly: 0 };
    const histogram = new Histogram();
    const joinHistogram = new Histogram();
    for (const result of results) {
      for (const key of Object.keys(total)) total[key] += result[key];
      histogram.merge(result.histogram);
      joinHistogram.merge(result.joinHistogram);
    }
    return { ...total, histogram, joinHistogram };
  }

  async close() {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.send({ type: 'close' });
          }),
      ),
    );
  }
}

/** A signed Pusher REST request (query signature as the server SDKs make it), valid for 600 s. */
export function signedEvent(channel, name, data) {
  const path = `/apps/${APP.id}/events`;
  const body = JSON.stringify({ name, channel, data });
  const query = new URLSearchParams(signRequest(APP, { method: 'POST', path, body })).toString();
  return { path: `${path}?${query}`, body };
}

/**
 * Signs a REST request the way the `pusher` Node SDK (5.x, `lib/requests.js`) does: `auth_key`, `auth_timestamp`
 * (the current second), `auth_version`, `body_md5` (hex MD5 of the JSON body), the keys sorted and joined
 * unencoded, then `auth_signature` = hex HMAC-SHA256 of `POST\n<path>\n<query>` appended last. Written out here
 * rather than taken from `signRequest`, so the bench sends the SDK's exact bytes and order.
 */
export function sdkSignedQuery(path, body, timestamp = Math.floor(Date.now() / 1000)) {
  const params = {
    auth_key: APP.key,
    auth_timestamp: timestamp,
    auth_version: '1.0',
    body_md5: createHash('md5').update(body, 'utf8').digest('hex'),
  };
  const query = Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');
  const signature = createHmac('sha256', APP.secret).update(`POST\n${path}\n${query}`).digest('hex');
  return `${query}&auth_signature=${signature}`;
}

/**
 * `count` distinct triggers to `channel` with the body the SDK's `trigger(channel, name, data)` sends
 * (`{"name","data","channels"}`), each carrying its own counter so bodies, `body_md5` and signatures all differ,
 * and timestamps spread over the last few seconds as a busy SDK client would produce them. `auth` is `signed`
 * (SDK query signature) or `bearer` (`Authorization: Bearer <secret>`, no query); both use the same bodies so
 * the authentication is the only difference.
 */
export function sdkTriggerPool(channel, count, auth) {
  const path = `/apps/${APP.id}/events`;
  const now = Math.floor(Date.now() / 1000);
  const requests = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ name: 'tick', data: JSON.stringify({ n: i }), channels: [channel] });
    const headers = { 'content-type': 'application/json', 'x-pusher-library': 'pusher-http-node 5.3.4' };
    if (auth === 'bearer') {
      requests.push({
        method: 'POST',
        path,
        headers: { ...headers, authorization: `Bearer ${APP.secret}` },
        body,
      });
    } else {
      requests.push({
        method: 'POST',
        path: `${path}?${sdkSignedQuery(path, body, now - (i % 5))}`,
        headers,
        body,
      });
    }
  }
  return requests;
}

export class Publisher {
  constructor(port, sockets = 16) {
    this.port = port;
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
    this.ok = 0;
    this.failed = 0;
    this.lastError = undefined;
  }

  /** POSTs one signed trigger; resolves true on 2xx. */
  trigger(channel, name, data) {
    const { path, body } = signedEvent(channel, name, data);
    return new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path,
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => {
            const ok = res.statusCode >= 200 && res.statusCode < 300;
            if (ok) this.ok++;
            else {
              this.failed++;
              this.lastError = `${res.statusCode} ${text.slice(0, 200)}`;
            }
            resolve(ok);
          });
        },
      );
      req.on('error', (error) => {
        this.failed++;
        this.lastError = error.message;
        resolve(false);
      });
      req.end(body);
    });
  }

  close() {
    this.agent.destroy();
  }
}
