import type { BellStore } from './bell-store.js';
import { apiBase } from './client.js';
import type { BellOptions } from './options.js';

/** A message between the page's tabs: a change made in one, as the live event the server would publish. */
interface CrossTabMessage {
  readonly event: string;
  readonly payload: unknown;
}

function isMessage(value: unknown): value is CrossTabMessage {
  return (
    typeof value === 'object' && value !== null && typeof (value as { event?: unknown }).event === 'string'
  );
}

/**
 * Opens the BroadcastChannel the bells of one user and one API share across the browser's tabs: a change made
 * in one tab (read, archived, snoozed, seen…) is applied in the others without a reload, whether they hold a
 * live connection or poll. Answers how to share a change, and the stop; both do nothing where the browser has
 * no BroadcastChannel.
 */
export function openCrossTab(
  store: BellStore,
  options: BellOptions,
): { share(event: string, payload: unknown): void; close(): void } {
  if (typeof BroadcastChannel === 'undefined') return { share() {}, close() {} };
  const channel = new BroadcastChannel(`herald-bell:${apiBase(options.apiUrl)}:${options.userId ?? ''}`);
  channel.onmessage = (message: MessageEvent<unknown>) => {
    if (isMessage(message.data)) store.applyLiveEvent(message.data.event, message.data.payload);
  };
  return {
    share(event, payload) {
      channel.postMessage({ event, payload } satisfies CrossTabMessage);
    },
    close() {
      channel.close();
    },
  };
}
