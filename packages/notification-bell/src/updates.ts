import { readCsrfToken } from './client.js';
import { type LiveConnection, shouldPoll } from './live/connection.js';
import { connectHub } from './live/hub.js';
import { connectWsproto } from './live/wsproto.js';
import { type BellOptions, liveChannelName, updateMode } from './options.js';
import type { BellStore } from './store.js';

/**
 * Keeps the store up to date: polls every `pollInterval` when the mode says so (in push-only mode, only while
 * the live connection is down), and opens the live connection when broadcasting is on. Returns the stop.
 */
export function startUpdates(store: BellStore, options: BellOptions): () => void {
  const mode = updateMode(options);
  let live: LiveConnection | undefined;
  const channel = liveChannelName(options);
  const broadcasting = options.broadcasting;

  if (broadcasting && channel) {
    const authEndpoint = broadcasting.authEndpoint ?? '/broadcasting/auth';
    const csrfToken = readCsrfToken();
    let wasLive = false;
    const handlers = {
      onEvent: (event: string, payload: unknown) => store.applyLiveEvent(event, payload),
      onState: (state: 'connecting' | 'live' | 'down') => {
        store.connection = state;
        // Catch up on what was published while the connection was down.
        if (state === 'live' && wasLive === false && store.loaded) void store.refresh();
        if (state === 'live') wasLive = true;
        if (state === 'down') wasLive = false;
      },
      onError: (message: string) => {
        store.error = message;
      },
    };
    if (broadcasting.broadcaster === 'hub') {
      if (broadcasting.hubUrl) {
        live = connectHub({ hubUrl: broadcasting.hubUrl, authEndpoint, channel, csrfToken }, handlers);
      } else {
        store.error = 'Live updates are off: broadcasting.hubUrl is not set.';
      }
    } else if (broadcasting.wsprotoKey) {
      live = connectWsproto(
        {
          key: broadcasting.wsprotoKey,
          host: broadcasting.wsprotoHost,
          port: broadcasting.wsprotoPort,
          cluster: broadcasting.wsprotoCluster,
          forceTLS: broadcasting.forceTLS,
          authEndpoint,
          channel,
          csrfToken,
        },
        handlers,
      );
    } else {
      store.error = 'Live updates are off: broadcasting.wsprotoKey is not set.';
    }
    if (live) store.connection = 'connecting';
  }

  const timer =
    mode === 'none'
      ? undefined
      : setInterval(() => {
          if (shouldPoll(mode, store.connection) && !store.isLoading) void store.refresh();
        }, options.pollInterval);

  return () => {
    if (timer) clearInterval(timer);
    live?.close();
    store.connection = 'off';
  };
}
