import PusherModule from 'pusher-js';

// pusher-js ships CommonJS typings that nodenext reads as a namespace: take the class from its default export.
export const PusherClient = PusherModule as unknown as typeof PusherModule.default;
export type PusherClient = InstanceType<typeof PusherClient>;

/** The server SDK's `authorizeChannel`, as an app's auth endpoint would call it. */
interface ChannelSigner {
  authorizeChannel(socketId: string, channel: string): { auth: string; channel_data?: string };
  authenticateUser?(socketId: string, user: { id: string }): { auth: string; user_data: string };
}

/**
 * A pusher-js client on loopback (ws only) whose channel authorizer signs with the given server SDK, as an app's
 * auth endpoint would; without one, private channels are refused.
 */
export function pusherJsClient(
  port: number,
  key: string,
  signer?: ChannelSigner,
  /** Signs `pusher.signin()` in as this user with the signer's `authenticateUser`. */
  user?: { id: string },
): PusherClient {
  return new PusherClient(key, {
    cluster: 'mt1',
    wsHost: '127.0.0.1',
    wsPort: port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      endpoint: '/unused',
      transport: 'ajax',
      customHandler: ({ socketId, channelName }, callback) => {
        if (!signer) return callback(new Error('no auth'), null);
        callback(null, signer.authorizeChannel(socketId, channelName));
      },
    },
    userAuthentication: {
      endpoint: '/unused',
      transport: 'ajax',
      customHandler: ({ socketId }, callback) => {
        if (!signer?.authenticateUser || !user) return callback(new Error('no user auth'), null);
        callback(null, signer.authenticateUser(socketId, user));
      },
    },
  });
}
