import PusherModule from 'pusher-js';

// pusher-js is CommonJS whose typings declare an ES default export: at run time the import is the class itself.
const PusherJs = PusherModule as unknown as typeof PusherModule.default;

/** A pusher-js client, as the tests drive it. */
export type PusherClient = InstanceType<typeof PusherJs>;

/**
 * Connects pusher-js to a Herald real-time server on loopback. Private channels are authorised by POSTing
 * pusher-js's form to `authEndpoint` with `headers` (a cookie and CSRF token, or a bearer user token); it
 * goes through fetch because Node's XHR refuses to send a Cookie header. `onAuth` hears each answer's status.
 */
export function connectPusher(options: {
  key: string;
  port: number;
  authEndpoint: string;
  headers: Record<string, string>;
  onAuth?: (status: number) => void;
}): PusherClient {
  return new PusherJs(options.key, {
    cluster: 'mt1',
    wsHost: '127.0.0.1',
    wsPort: options.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      endpoint: options.authEndpoint,
      transport: 'ajax',
      customHandler: ({ socketId, channelName }, callback) => {
        void fetch(options.authEndpoint, {
          method: 'POST',
          headers: options.headers,
          body: new URLSearchParams({ socket_id: socketId, channel_name: channelName }),
        }).then(async (response) => {
          options.onAuth?.(response.status);
          if (response.ok) callback(null, (await response.json()) as { auth: string });
          else callback(new Error(`auth answered ${response.status}`), null);
        });
      },
    },
  });
}
