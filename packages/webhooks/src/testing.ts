import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { ClaimedWebhookJob, WebhookJob, WebhookQueue } from './queue.js';

// Test helpers for the webhook ports: the queue contract, framework-free (node:assert), so any implementation
// can run it under any test runner; and a loopback receiver that records what a webhook endpoint would see.

/** Makes a fresh, empty queue with the given lease; the caller closes what it made after each case. */
export type WebhookQueueFactory = (options: { readonly leaseMs: number }) => Promise<WebhookQueue>;

/** One case of the queue contract. */
export interface WebhookQueueContractCase {
  readonly name: string;
  run(make: WebhookQueueFactory): Promise<void>;
}

let sequence = 0;
/** A job for contract tests: lane `lane`, app `appId`, and a body that names it. */
export function testJob(lane: string, appId = 'app-1', events = 1): WebhookJob {
  sequence += 1;
  return {
    lane,
    appId,
    url: `http://127.0.0.1:9/${lane}`,
    headers: { 'X-Lane': lane },
    body: JSON.stringify({ time_ms: 1_700_000_000_000 + sequence, events: [{ seq: sequence }] }),
    events,
    createdAt: 1_700_000_000_000 + sequence,
  };
}

const only = <T>(values: readonly T[]): T => {
  assert.equal(values.length, 1, `expected exactly one, got ${values.length}`);
  return values[0]!;
};

const fieldsOf = (job: WebhookJob | ClaimedWebhookJob): WebhookJob => ({
  lane: job.lane,
  appId: job.appId,
  url: job.url,
  headers: job.headers,
  body: job.body,
  events: job.events,
  createdAt: job.createdAt,
});

/** Waits (generously, for busy machines) until `consumer` can claim something. */
async function claimWithin(queue: WebhookQueue, consumer: string, ms: number): Promise<ClaimedWebhookJob[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const jobs = await queue.claim(consumer, 10);
    if (jobs.length > 0 || Date.now() > deadline) return jobs;
    await delay(20);
  }
}

/**
 * The behaviour every {@link WebhookQueue} must show, as named cases. Leases in these cases are short (a few
 * hundred ms), so implementations must honour leases of that size.
 * @example
 * ```ts
 * for (const contractCase of webhookQueueContract()) it(contractCase.name, () => contractCase.run(make));
 * ```
 */
export function webhookQueueContract(): readonly WebhookQueueContractCase[] {
  return [
    {
      name: 'hands a queued job out with every field intact, no attempts and its consumer',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        const job = testJob('lane-a');
        assert.equal(await queue.enqueue(job), 'queued');
        const claimed = only(await queue.claim('node-1', 10));
        assert.deepEqual(fieldsOf(claimed), job);
        assert.equal(claimed.attempts, 0);
        assert.equal(claimed.consumer, 'node-1');
        assert.equal(typeof claimed.id, 'string');
      },
    },
    {
      name: 'leases one job per lane at a time, oldest first, and the next only after an ack',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        const first = testJob('lane-a');
        const second = testJob('lane-a');
        await queue.enqueue(first);
        await queue.enqueue(second);
        const claimed = only(await queue.claim('node-1', 10));
        assert.equal(claimed.body, first.body);
        assert.deepEqual(await queue.claim('node-1', 10), []);
        assert.deepEqual(await queue.claim('node-2', 10), []);
        assert.equal(await queue.ack(claimed), true);
        const next = only(await queue.claim('node-2', 10));
        assert.equal(next.body, second.body);
      },
    },
    {
      name: 'serves several lanes in one claim, never more than asked',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        for (const lane of ['lane-a', 'lane-b', 'lane-c']) await queue.enqueue(testJob(lane));
        const two = await queue.claim('node-1', 2);
        assert.equal(two.length, 2);
        assert.notEqual(two[0]!.lane, two[1]!.lane);
        const rest = only(await queue.claim('node-2', 10));
        assert.ok(!two.some((job) => job.lane === rest.lane));
      },
    },
    {
      name: 'keeps a lane in queue order through many claims and acks',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        const jobs = Array.from({ length: 20 }, () => testJob('lane-a'));
        for (const job of jobs) await queue.enqueue(job);
        const seen: string[] = [];
        for (let i = 0; i < jobs.length; i++) {
          const claimed = only(await queue.claim(i % 2 ? 'node-1' : 'node-2', 10));
          seen.push(claimed.body);
          assert.equal(await queue.ack(claimed), true);
        }
        assert.deepEqual(
          seen,
          jobs.map((job) => job.body),
        );
        assert.deepEqual(await queue.claim('node-1', 10), []);
      },
    },
    {
      name: 'gives a job whose lease lapsed to another consumer, and refuses the old holder its ack',
      async run(make) {
        const queue = await make({ leaseMs: 300 });
        await queue.enqueue(testJob('lane-a'));
        const claimed = only(await queue.claim('node-1', 10));
        assert.deepEqual(await queue.claim('node-2', 10), []);
        const taken = only(await claimWithin(queue, 'node-2', 20_000));
        assert.equal(taken.id, claimed.id);
        assert.equal(taken.consumer, 'node-2');
        assert.equal(taken.body, claimed.body);
        assert.equal(await queue.ack(claimed), false);
        assert.equal(await queue.ack(taken), true);
        assert.equal(await queue.depth(), 0);
      },
    },
    {
      name: 'puts a retried job back at the head of its lane, due after the delay, with one more attempt',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        const first = testJob('lane-a');
        await queue.enqueue(first);
        await queue.enqueue(testJob('lane-a'));
        const claimed = only(await queue.claim('node-1', 10));
        const released = Date.now();
        assert.equal(await queue.retryLater(claimed, 400), true);
        assert.deepEqual(await queue.claim('node-2', 10), []);
        const again = only(await claimWithin(queue, 'node-2', 20_000));
        assert.ok(Date.now() - released >= 350, 'claimed before the retry was due');
        assert.equal(again.body, first.body);
        assert.equal(again.attempts, 1);
        assert.equal(await queue.retryLater(again, 0), true);
        const third = only(await claimWithin(queue, 'node-1', 20_000));
        assert.equal(third.attempts, 2);
        assert.equal(third.body, first.body);
      },
    },
    {
      name: 'refuses an ack or retry from a consumer that does not hold the job',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        await queue.enqueue(testJob('lane-a'));
        const claimed = only(await queue.claim('node-1', 10));
        const impostor: ClaimedWebhookJob = { ...claimed, consumer: 'node-2' };
        assert.equal(await queue.ack(impostor), false);
        assert.equal(await queue.retryLater(impostor, 0), false);
        assert.equal(await queue.depth(), 1);
        assert.equal(await queue.ack(claimed), true);
      },
    },
    {
      name: 'counts queued events per app and in all, down again on ack',
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        await queue.enqueue(testJob('lane-a', 'app-1', 3));
        await queue.enqueue(testJob('lane-b', 'app-2', 2));
        await queue.enqueue(testJob('lane-b', 'app-2', 1));
        assert.equal(await queue.depth('app-1'), 3);
        assert.equal(await queue.depth('app-2'), 3);
        assert.equal(await queue.depth('app-3'), 0);
        assert.equal(await queue.depth(), 6);
        const claimed = await queue.claim('node-1', 10);
        for (const job of claimed) await queue.ack(job);
        assert.equal(await queue.depth('app-1'), 0);
        assert.equal(await queue.depth('app-2'), 1);
        assert.equal(await queue.depth(), 1);
      },
    },
    {
      name: "refuses a job that would take its app past maxEvents, leaving other apps' room alone",
      async run(make) {
        const queue = await make({ leaseMs: 30_000 });
        assert.equal(await queue.enqueue(testJob('lane-a', 'app-1', 3), { maxEvents: 4 }), 'queued');
        assert.equal(await queue.enqueue(testJob('lane-a', 'app-1', 2), { maxEvents: 4 }), 'full');
        assert.equal(await queue.enqueue(testJob('lane-b', 'app-2', 4), { maxEvents: 4 }), 'queued');
        assert.equal(await queue.enqueue(testJob('lane-a', 'app-1', 1), { maxEvents: 4 }), 'queued');
        assert.equal(await queue.depth('app-1'), 4);
        const claimed = (await queue.claim('node-1', 10)).find((job) => job.appId === 'app-1')!;
        await queue.ack(claimed);
        assert.equal(await queue.enqueue(testJob('lane-a', 'app-1', 2), { maxEvents: 4 }), 'queued');
      },
    },
  ];
}

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly receivedAt: number;
  /** The status it was answered with, once answered ('hang' and 'destroy' never are). */
  status: number | undefined;
}

/** How the receiver answers a request: a status, never ('hang'), or by dropping the connection ('destroy'). */
export type ReceiverAnswer = number | 'hang' | 'destroy';

/** A webhook endpoint on loopback that records every request. */
export interface WebhookReceiver {
  readonly url: string;
  readonly requests: readonly ReceivedRequest[];
  /** Decides each answer (200 by default); replace it at any time. */
  answer: (request: ReceivedRequest) => ReceiverAnswer;
  /** Resolves once `check` holds over the requests so far; rejects after `timeoutMs` (30000 by default). */
  waitFor(check: (requests: readonly ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops listening; hanging requests are dropped. */
  close(): Promise<void>;
}

/**
 * Starts a webhook receiver on 127.0.0.1 on a free port (or `port`, to bring one back on the same address).
 * @example
 * ```ts
 * const receiver = await startWebhookReceiver();
 * receiver.answer = () => 500;
 * ```
 */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        status: undefined,
      };
      requests.push(request);
      const answer = receiver.answer(request);
      if (answer === 'destroy') req.socket.destroy();
      else if (answer === 'hang') hanging.add(res);
      else {
        request.status = answer;
        res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
      }
      for (const waiter of waiters) waiter();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${address.port}/webhooks`,
    requests,
    answer: () => 200,
    waitFor(check, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const test = () => {
          if (!check(requests)) return;
          clearTimeout(timer);
          waiters.delete(test);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(test);
          reject(
            new Error(`receiver: condition not met within ${timeoutMs} ms (${requests.length} requests)`),
          );
        }, timeoutMs);
        waiters.add(test);
        test();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        hanging.clear();
      });
    },
  };
  return receiver;
}
