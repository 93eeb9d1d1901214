import Pusher from 'pusher-js';
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
  readonly csrfToken?: string | undefined;
}

/**
 * Subscribes to the user's private channel on Herald's real-time server (Pusher protocol 7) through pusher-js,
 * authorised at `authEndpoint` with the page's session cookie and CSRF token.
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
      endpoint: target.authEndpoint,
      transport: 'ajax',
      headers: target.csrfToken ? { 'X-CSRF-Token': target.csrfToken } : {},
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
  channel.bind('pusher:subscription_error', (error: { status?: number }) => {
    subscribed = false;
    report();
    handlers.onError(
      `Live updates are off: the channel was not authorised${error?.status ? ` (HTTP ${error.status})` : ''}.`,
    );
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
