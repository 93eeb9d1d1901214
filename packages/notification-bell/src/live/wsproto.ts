import Pusher from 'pusher-js';
import { postAuthorisation } from './authorise.js';
import type { LiveConnection, LiveHandlers } from './connection.js';

/** Where to reach Herald's real-time server and how to authorise the private channel. */
export interface WsprotoTarget {
  readonly key: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly cluster?: string | undefined;
  readonly forceTLS?: boolean | undefined;
  readonly authEndpoint: string;
  readonly channel: string;
  /**
   * The headers that authenticate the authorisation request: `Authorization: Bearer <token>` for a host-signed
   * user token, or the page's CSRF token for a cookie session (the bell passes its own; none by default).
   */
  readonly authHeaders?: (() => Promise<Record<string, string>>) | undefined;
  /** Whether the authorisation request carries cookies (default `same-origin`). */
  readonly credentials?: RequestCredentials | undefined;
  readonly fetch?: typeof fetch | undefined;
}

/** The answer pusher-js expects from a channel authorisation. */
interface ChannelGrant {
  auth: string;
  channel_data?: string;
  shared_secret?: string;
}

/**
 * Asks `authEndpoint` for the channel's signature the way pusher-js would (a form post of `socket_id` and
 * `channel_name`), with the bell's own headers: a token from a function, which pusher-js's own request cannot
 * wait for, and the chosen cookie mode.
 */
async function authoriseChannel(
  target: WsprotoTarget,
  socketId: string,
  channel: string,
): Promise<ChannelGrant> {
  const grant = (await postAuthorisation(
    target,
    new URLSearchParams({ socket_id: socketId, channel_name: channel }),
    'channel authorisation',
  )) as Partial<ChannelGrant>;
  if (typeof grant.auth !== 'string') throw new Error('the channel authorisation did not answer {auth}');
  return grant as ChannelGrant;
}

/**
 * Subscribes to the user's private channel on Herald's real-time server (Pusher protocol 7) through pusher-js,
 * authorised at `authEndpoint` with a host-signed user token, or the page's session cookie and CSRF token.
 */
export function connectWsproto(target: WsprotoTarget, handlers: LiveHandlers): LiveConnection {
  const secure = target.forceTLS ?? globalThis.location?.protocol === 'https:';
  const pusher = new Pusher(target.key, {
    cluster: target.cluster ?? 'mt1',
    ...(target.host ? { wsHost: target.host } : {}),
    ...(target.port ? { wsPort: target.port, wssPort: target.port } : {}),
    forceTLS: secure,
    enabledTransports: ['ws', 'wss'],
    disableStats: true,
    channelAuthorization: {
      customHandler: ({ socketId, channelName }, callback) => {
        authoriseChannel(target, socketId, channelName).then(
          (grant) => callback(null, grant),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
        );
      },
    },
  });
  let subscribed = false;
  let connected = false;
  const report = () => handlers.onState(connected && subscribed ? 'live' : connected ? 'connecting' : 'down');

  pusher.connection.bind('state_change', (change: { current: string }) => {
    connected = change.current === 'connected';
    if (change.current === 'connecting' && !subscribed) handlers.onState('connecting');
    else report();
  });
  const channel = pusher.subscribe(target.channel);
  channel.bind('pusher:subscription_succeeded', () => {
    subscribed = true;
    report();
  });
  channel.bind('pusher:subscription_error', (error: { status?: number; error?: string }) => {
    subscribed = false;
    report();
    const why = error?.status ? `HTTP ${error.status}` : error?.error;
    handlers.onError(`Live updates are off: the channel was not authorised${why ? ` (${why})` : ''}.`);
  });
  channel.bind_global((event: string, payload: unknown) => {
    if (event.startsWith('pusher:') || event.startsWith('pusher_internal:')) return;
    handlers.onEvent(event, payload);
  });
  return {
    close() {
      pusher.disconnect();
    },
  };
}
