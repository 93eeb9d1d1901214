import { ScalingRedisError } from './errors.js';
import { createCommandLink } from './internal/command-link.js';
import { runScript } from './internal/scripts.js';
import * as lua from './internal/webhook-scripts.js';
import { type Logger, silentLogger } from './logger.js';
import type { RedisServerOptions } from './redis-options.js';

// The shape of @herald/webhooks' WebhookQueue port, declared here because adapters never import the packages
// they serve; apps/realtime hands this queue to `createWebhookDispatcher`.

/** A webhook request waiting in the queue (the `WebhookJob` of @herald/webhooks). */
export interface WebhookQueueJob {
  readonly lane: string;
  readonly appId: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly events: number;
  readonly createdAt: number;
}

/** A job leased to one consumer (the `ClaimedWebhookJob` of @herald/webhooks). */
export interface ClaimedWebhookQueueJob extends WebhookQueueJob {
  readonly id: string;
  readonly attempts: number;
  readonly consumer: string;
}

/** A webhook queue in Redis streams, shared by every node; close it after the dispatcher. */
export interface RedisWebhookQueue {
  readonly leaseMs: number;
  enqueue(
    job: WebhookQueueJob,
    limits?: { readonly maxEvents?: number | undefined },
  ): Promise<'queued' | 'full'>;
  claim(consumer: string, max: number): Promise<ClaimedWebhookQueueJob[]>;
  ack(job: ClaimedWebhookQueueJob): Promise<boolean>;
  retryLater(job: ClaimedWebhookQueueJob, delayMs: number): Promise<boolean>;
  depth(appId?: string): Promise<number>;
  /** Resolves once connected (operations reject while Redis is away). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link createRedisWebhookQueue}: where Redis is, plus the queue's own settings. */
export interface RedisWebhookQueueOptions extends RedisServerOptions {
  /** Prepended to every key ('herald:' by default): the queue's keys are `<prefix>{webhooks}:…`. */
  readonly keyPrefix?: string | undefined;
  /**
   * How long a claim lasts without an ack or retry before another node takes the job over (30000 ms by
   * default). Use the same value on every node, above the dispatcher's request timeout.
   */
  readonly leaseMs?: number | undefined;
  readonly logger?: Logger | undefined;
}

const GROUP = 'webhooks';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Creates the webhook queue of a cluster: one Redis stream per lane (app and webhook target) with a consumer
 * group, a sorted set of lanes by the time each may next be claimed, and per-app event counters. A lane hands
 * out its head to one node at a time; a node that dies holding it loses it after `leaseMs` (XAUTOCLAIM), so the
 * job is delivered at least once across a crash and exactly once otherwise. All keys share the `{webhooks}` hash
 * tag, so the queue lives on one shard of a Redis Cluster.
 * @throws {ScalingRedisError} `invalid_options` for options that cannot work.
 * @example
 * ```ts
 * const queue = createRedisWebhookQueue({ url: 'redis://127.0.0.1:6379', keyPrefix: 'herald:' });
 * const dispatcher = createWebhookDispatcher({ apps, queue });
 * ```
 */
export function createRedisWebhookQueue(options: RedisWebhookQueueOptions = {}): RedisWebhookQueue {
  const logger = options.logger ?? silentLogger;
  const leaseMs = options.leaseMs ?? 30_000;
  if (!(leaseMs > 0)) throw new ScalingRedisError('invalid_options', 'leaseMs must be positive');
  const base = `${options.keyPrefix ?? 'herald:'}{webhooks}:`;
  const keys = {
    due: `${base}due`,
    counts: `${base}counts`,
    attempts: `${base}attempts`,
    lanePrefix: `${base}lane:`,
    lane: (lane: string) => `${base}lane:${lane}`,
  };
  const { link, connected, close } = createCommandLink(options, logger, {
    what: 'webhook queue',
    eager: true,
  });
  const run = async (script: lua.WebhookScript, scriptKeys: readonly string[], args: readonly string[]) => {
    await connected();
    return runScript(link, script, scriptKeys, args);
  };

  return {
    leaseMs,
    ready: () => connected(),
    async enqueue(job, limits = {}) {
      const queued = await run(
        lua.enqueue,
        [keys.lane(job.lane), keys.due, keys.counts],
        [
          job.lane,
          job.appId,
          String(job.events),
          limits.maxEvents === undefined ? '' : String(limits.maxEvents),
          JSON.stringify(job),
          GROUP,
        ],
      );
      return Number(queued) === 1 ? 'queued' : 'full';
    },
    async claim(consumer, max) {
      if (max <= 0) return [];
      const reply = await run(
        lua.claim,
        [keys.due, keys.attempts],
        [keys.lanePrefix, GROUP, consumer, String(max), String(leaseMs)],
      );
      const jobs: ClaimedWebhookQueueJob[] = [];
      for (const row of Array.isArray(reply) ? reply : []) {
        const [lane, id, json, attempts] = (row as unknown[]).map(String);
        try {
          const job = JSON.parse(json ?? '') as WebhookQueueJob;
          jobs.push({ ...job, lane: lane ?? job.lane, id: id ?? '', attempts: Number(attempts), consumer });
        } catch (error) {
          // Written by enqueue with JSON.stringify; only a foreign writer could break it. Never send it.
          logger.error('webhook queue: unreadable job', { lane, id, error: messageOf(error) });
        }
      }
      return jobs;
    },
    async ack(job) {
      const done = await run(
        lua.ack,
        [keys.lane(job.lane), keys.due, keys.counts, keys.attempts],
        [job.lane, job.id, GROUP, job.consumer],
      );
      return Number(done) === 1;
    },
    async retryLater(job, delayMs) {
      const done = await run(
        lua.retryLater,
        [keys.lane(job.lane), keys.due, keys.attempts],
        [job.lane, job.id, GROUP, job.consumer, String(Math.max(0, Math.round(delayMs))), String(leaseMs)],
      );
      return Number(done) === 1;
    },
    async depth(appId) {
      await connected();
      if (appId !== undefined)
        return Number((await link.send(keys.counts, ['HGET', keys.counts, appId])) ?? 0);
      const values = await link.send(keys.counts, ['HVALS', keys.counts]);
      return (Array.isArray(values) ? values : []).reduce((sum: number, value) => sum + Number(value), 0);
    },
    close,
  };
}
