import { createAppEventCounts } from './internal/app-event-counts.js';
import type { ClaimedWebhookJob, EnqueueOutcome, WebhookJob, WebhookQueue } from './queue.js';

/** Options of {@link createMemoryWebhookQueue}. */
export interface MemoryWebhookQueueOptions {
  /** How long a claim lasts without an ack or retry (30000 ms by default). */
  readonly leaseMs?: number | undefined;
  /** The clock, for tests (Date.now by default). */
  readonly now?: (() => number) | undefined;
}

interface Entry {
  readonly id: string;
  readonly job: WebhookJob;
  attempts: number;
  /** Not claimable before this time (a retry's due time, or the end of a lease). */
  notBefore: number;
  consumer: string | undefined;
}

/**
 * Creates the queue of a server that runs alone: jobs live in this process and are lost with it.
 * @example
 * ```ts
 * const dispatcher = createWebhookDispatcher({ apps, queue: createMemoryWebhookQueue() });
 * ```
 */
export function createMemoryWebhookQueue(options: MemoryWebhookQueueOptions = {}): WebhookQueue {
  const leaseMs = options.leaseMs ?? 30_000;
  const now = options.now ?? Date.now;
  // Map keeps insertion order, so lanes are served oldest first.
  const lanes = new Map<string, Entry[]>();
  const queuedByApp = createAppEventCounts();
  let nextId = 0;

  const held = (job: ClaimedWebhookJob): { lane: Entry[]; entry: Entry } | undefined => {
    const lane = lanes.get(job.lane);
    const entry = lane?.[0];
    if (!lane || !entry || entry.id !== job.id || entry.consumer !== job.consumer) return undefined;
    if (entry.notBefore <= now()) return undefined; // The lease lapsed: the job may belong to someone else.
    return { lane, entry };
  };

  return {
    leaseMs,
    async enqueue(job, limits = {}): Promise<EnqueueOutcome> {
      const queued = queuedByApp.of(job.appId);
      if (limits.maxEvents !== undefined && queued + job.events > limits.maxEvents) return 'full';
      const entry: Entry = { id: String(++nextId), job, attempts: 0, notBefore: 0, consumer: undefined };
      const lane = lanes.get(job.lane);
      if (lane) lane.push(entry);
      else lanes.set(job.lane, [entry]);
      queuedByApp.add(job.appId, job.events);
      return 'queued';
    },
    async claim(consumer, max) {
      const claimed: ClaimedWebhookJob[] = [];
      const at = now();
      for (const lane of lanes.values()) {
        if (claimed.length >= max) break;
        const head = lane[0];
        if (!head || head.notBefore > at) continue;
        head.consumer = consumer;
        head.notBefore = at + leaseMs;
        claimed.push({ ...head.job, id: head.id, attempts: head.attempts, consumer });
      }
      return claimed;
    },
    async ack(job) {
      const found = held(job);
      if (!found) return false;
      found.lane.shift();
      if (found.lane.length === 0) lanes.delete(job.lane);
      queuedByApp.add(job.appId, -found.entry.job.events);
      return true;
    },
    async retryLater(job, delayMs) {
      const found = held(job);
      if (!found) return false;
      found.entry.attempts += 1;
      found.entry.consumer = undefined;
      found.entry.notBefore = now() + Math.max(0, delayMs);
      return true;
    },
    async depth(appId) {
      return appId === undefined ? queuedByApp.total() : queuedByApp.of(appId);
    },
  };
}
