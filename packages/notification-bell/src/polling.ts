import type { BellStore } from './bell-store.js';
import { shouldPoll } from './live/connection.js';
import { type BellOptions, updateMode } from './options.js';

/**
 * Polls every `pollInterval` when the mode says so: in `poll` and `combined` mode always, in `push` mode only
 * while the live connection is not up, never while a load is running. Returns the stop.
 */
export function startPolling(store: BellStore, options: BellOptions): () => void {
  const mode = updateMode(options);
  if (mode === 'none') return () => {};
  const timer = setInterval(() => {
    if (shouldPoll(mode, store.connection) && !store.isLoading) void store.refresh();
  }, options.pollInterval);
  return () => clearInterval(timer);
}
