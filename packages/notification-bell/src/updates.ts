import type { BellStore } from './bell-store.js';
import { startLivePush } from './live-push.js';
import type { BellOptions } from './options.js';
import { startPolling } from './polling.js';

/**
 * Keeps the store up to date: polls every `pollInterval` when the mode says so (in push-only mode, only while
 * the live connection is down), and opens the live connection when broadcasting is on. Returns the stop.
 */
export function startUpdates(store: BellStore, options: BellOptions): () => void {
  const stopLive = startLivePush(store, options);
  const stopPolling = startPolling(store, options);
  return () => {
    stopLive();
    stopPolling();
    store.connection = 'off';
  };
}
