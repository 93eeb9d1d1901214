import { authHeaders } from './auth.js';
import type { BellStore } from './bell-store.js';
import { readCsrfToken } from './client.js';
import type { LiveConnection, LiveHandlers } from './live/connection.js';
import { type BellOptions, liveChannelName } from './options.js';

/**
 * Opens the live connection the options ask for. The live modules are imported here, on demand, so that a
 * page without broadcasting never loads pusher-js (about 18 KB gzip) nor the hub client.
 */
async function openLive(
  options: BellOptions,
  channel: string,
  handlers: LiveHandlers,
): Promise<LiveConnection | string> {
  const broadcasting = options.broadcasting;
  if (!broadcasting) return 'Live updates are off.';
  const authEndpoint = broadcasting.authEndpoint ?? '/broadcasting/auth';
  // Made here and handed over, so that the live modules share no code with the bell's first chunk.
  const headers = () => authHeaders({ authToken: options.authToken, csrfToken: readCsrfToken }, true);
  const credentials = options.credentials;
  if (broadcasting.broadcaster === 'hub') {
    if (!broadcasting.hubUrl) return 'Live updates are off: broadcasting.hubUrl is not set.';
    const { connectHub } = await import('./live/hub.js');
    return connectHub(
      { hubUrl: broadcasting.hubUrl, authEndpoint, channel, authHeaders: headers, credentials },
      handlers,
    );
  }
  if (!broadcasting.wsprotoKey) return 'Live updates are off: broadcasting.wsprotoKey is not set.';
  const { connectWsproto } = await import('./live/wsproto.js');
  return connectWsproto(
    {
      key: broadcasting.wsprotoKey,
      host: broadcasting.wsprotoHost,
      port: broadcasting.wsprotoPort,
      cluster: broadcasting.wsprotoCluster,
      forceTLS: broadcasting.forceTLS,
      authEndpoint,
      channel,
      authHeaders: headers,
      credentials,
    },
    handlers,
  );
}

/**
 * Opens the live connection when broadcasting is on and hands its events to the store; the store's
 * `connection` follows it, and coming back up catches up on what was published meanwhile. Returns the stop.
 */
export function startLivePush(store: BellStore, options: BellOptions): () => void {
  const channel = liveChannelName(options);
  if (!options.broadcasting || !channel) return () => {};
  let live: LiveConnection | undefined;
  let stopped = false;
  let wasLive = false;
  const handlers: LiveHandlers = {
    onEvent: (event, payload) => store.applyLiveEvent(event, payload),
    onState: (state) => {
      store.connection = state;
      // Catch up on what was published while the connection was down.
      if (state === 'live' && wasLive === false && store.loaded) void store.refresh();
      if (state === 'live') wasLive = true;
      if (state === 'down') wasLive = false;
    },
    onError: (message) => {
      store.error = message;
    },
  };
  store.connection = 'connecting';
  openLive(options, channel, handlers).then(
    (opened) => {
      if (typeof opened === 'string') {
        store.error = opened;
        store.connection = 'off';
      } else if (stopped) {
        opened.close();
      } else {
        live = opened;
      }
    },
    (error: unknown) => {
      // The live module could not be loaded (offline, a stale deployment): polling covers.
      store.error = `Live updates are off: ${error instanceof Error ? error.message : String(error)}.`;
      store.connection = 'down';
    },
  );
  return () => {
    stopped = true;
    live?.close();
  };
}
