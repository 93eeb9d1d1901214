import type { AppStore, RealtimeServer } from '@herald/realtime-server';
import type { ServedApp } from './app-source.js';
import type { RunningWebhooks } from './webhooks.js';

/** How long a shutdown gives the webhooks to send what the drain queued. */
const WEBHOOK_DRAIN_MS = 5000;

/** What a running node has opened, closed in this order by both `close` and `shutdown`. */
export interface OpenParts {
  readonly stopWatching: () => void;
  readonly store: AppStore<ServedApp>;
  readonly server: RealtimeServer;
  readonly webhooks: RunningWebhooks | undefined;
  readonly webhookQueue: { close(): Promise<void> } | undefined;
  readonly sharedLimits: { close(): Promise<void> } | undefined;
  /** The shared history's connection: the server only stops using it, this closes it. */
  readonly history: { close(): Promise<void> } | undefined;
  /** The console's shared usage counters (clustered with the console on). */
  readonly usageStore: { close(): Promise<void> } | undefined;
}

/** The one teardown of a node: `shutdown` drains the sockets first, `close` does not wait. */
export function createTeardown(parts: OpenParts): {
  close(): Promise<void>;
  shutdown(graceMs: number): Promise<void>;
} {
  const teardown = async (webhookDrainMs: number) => {
    parts.stopWatching();
    await parts.store.close();
    await parts.server.close();
    // After the server: the vacated and member_removed events of its last sockets are queued by then.
    await parts.webhooks?.close(webhookDrainMs);
    await parts.webhookQueue?.close();
    await parts.sharedLimits?.close();
    await parts.history?.close();
    await parts.usageStore?.close();
  };
  return {
    close: () => teardown(0),
    async shutdown(graceMs) {
      await parts.server.drain({ graceMs });
      await teardown(WEBHOOK_DRAIN_MS);
    },
  };
}
