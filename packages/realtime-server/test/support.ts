import { signChannelAuth, signUserAuth } from '@herald/protocol-core';
import { until } from '@herald/test-kit';
import Pusher from 'pusher';
import PusherModule from 'pusher-js';
import WebSocket from 'ws';
import {
  createRealtimeServer,
  type RealtimeApp,
  type RealtimeServer,
  type RealtimeServerOptions,
  type TransportPreference,
} from '../src/index.js';

/**
 * The transport every test server runs on: `HERALD_TRANSPORT` (set per vitest project, so the whole suite runs on
 * each transport), else the server's own choice.
 */
export const TEST_TRANSPORT = (process.env.HERALD_TRANSPORT ?? 'auto') as TransportPreference;

// pusher-js ships CommonJS typings that nodenext reads as a namespace: take the class from its default export.
export const PusherClient = PusherModule as unknown as typeof PusherModule.default;
export type PusherClient = InstanceType<typeof PusherClient>;

export const APP = { id: 'app-1', key: 'app-key', secret: 'app-secret' } as const;

/** Starts a server on a random loopback port; `stop` closes it. */
export async function startServer(
  overrides: Partial<RealtimeServerOptions> & { app?: Partial<RealtimeApp> } = {},
): Promise<{
  server: RealtimeServer;
  port: number;
  url: (key?: string, query?: string) => string;
  stop: () => Promise<void>;
}> {
  const { app, ...rest } = overrides;
  const server = createRealtimeServer({
    host: '127.0.0.1',
    port: 0,
    processMetrics: false,
    transport: TEST_TRANSPORT,
    apps: [{ ...APP, ...app }],
    ...rest,
  });
  const port = await server.listen();
  const prefix = rest.path ?? '';
  return {
    server,
    port,
    url: (key = APP.key, query = 'protocol=7&client=js&version=8.4.0') =>
      `ws://127.0.0.1:${port}${prefix}/app/${key}?${query}`,
    stop: () => server.close(),
  };
}

/** A parsed frame from the server, with `data` decoded as pusher-js decodes it. */
export interface Frame {
  event: string;
  channel?: string;
  data?: unknown;
  rawData?: unknown;
  user_id?: string;
}

function decode(text: string): Frame {
  const frame = JSON.parse(text) as Frame;
  frame.rawData = frame.data;
  if (typeof frame.data === 'string') {
    try {
      frame.data = JSON.parse(frame.data);
    } catch {
      // App data that is not JSON stays a string, as in pusher-js.
    }
  }
  return frame;
}

/** A raw WebSocket client speaking the protocol by hand, for the error paths. */
export class RawClient {
  readonly frames: Frame[] = [];
  /** The id from `pusher:connection_established`, once it arrived. */
  socketId = '';
  readonly texts: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters: Array<{ test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }> = [];
  #cursor = 0;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    ws.on('message', (raw) => {
      const text = raw.toString();
      this.texts.push(text);
      const frame = decode(text);
      if (frame.event === 'pusher:connection_established') {
        this.socketId = (frame.data as { socket_id: string }).socket_id;
      }
      this.frames.push(frame);
      for (const waiter of [...this.#waiters]) {
        if (waiter.test(frame)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
    const ws = new WebSocket(url, { headers });
    const client = new RawClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  /** Connects and waits for `pusher:connection_established`; returns the client and its socket id. */
  static async established(
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ client: RawClient; socketId: string }> {
    const client = await RawClient.connect(url, headers);
    const frame = await client.next('pusher:connection_established');
    return { client, socketId: (frame.data as { socket_id: string }).socket_id };
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  sendRaw(text: string | Buffer, binary = false): void {
    this.ws.send(text, { binary });
  }

  /** Resolves with the next frame (after those already consumed) matching the event name or predicate. */
  next(match: string | ((frame: Frame) => boolean), timeoutMs = 3000): Promise<Frame> {
    const test = typeof match === 'string' ? (frame: Frame) => frame.event === match : match;
    for (let i = this.#cursor; i < this.frames.length; i++) {
      const frame = this.frames[i] as Frame;
      if (test(frame)) {
        this.#cursor = i + 1;
        return Promise.resolve(frame);
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Timed out waiting for ${String(match)}`)), timeoutMs);
      this.#waiters.push({
        test,
        resolve: (frame) => {
          clearTimeout(timer);
          this.#cursor = this.frames.length;
          resolve(frame);
        },
      });
    });
  }

  /**
   * Sends `pusher:subscribe`, signed with the test app's secret for private, encrypted and presence channels
   * (`member` becomes the presence `channel_data`), and resolves with the server's answer for that channel.
   */
  subscribe(channel: string, member?: { user_id: string; user_info?: unknown }): Promise<Frame> {
    const data: { channel: string; auth?: string; channel_data?: string } = { channel };
    if (/^(private|presence)-/.test(channel)) {
      const channelData = member === undefined ? undefined : JSON.stringify(member);
      data.auth = signChannelAuth(APP, { socketId: this.socketId, channel, channelData });
      if (channelData !== undefined) data.channel_data = channelData;
    }
    return this.subscribeWith(data);
  }

  /** Sends `pusher:subscribe` with exactly this data; resolves with subscription_succeeded or _error. */
  subscribeWith(data: { channel: string; auth?: string; channel_data?: string }): Promise<Frame> {
    this.send({ event: 'pusher:subscribe', data });
    return this.next(
      (frame) =>
        frame.channel === data.channel &&
        (frame.event === 'pusher_internal:subscription_succeeded' ||
          frame.event === 'pusher:subscription_error'),
    );
  }

  /** Signs in with the test app's secret; resolves with the server's answer. */
  signin(user: Record<string, unknown>): Promise<Frame> {
    const userData = JSON.stringify(user);
    this.send({
      event: 'pusher:signin',
      data: { auth: signUserAuth(APP, this.socketId, userData), user_data: userData },
    });
    return this.next((frame) => frame.event === 'pusher:signin_success' || frame.event === 'pusher:error');
  }

  /**
   * Resolves once the server has handled every frame sent before: it answers a `pusher:ping` in order.
   * Rejects if the socket no longer answers.
   */
  async roundTrip(timeoutMs = 1000): Promise<void> {
    this.send({ event: 'pusher:ping', data: {} });
    await this.next('pusher:pong', timeoutMs);
  }

  /** Whether the socket is open and still served (it answers a ping). */
  async isServed(): Promise<boolean> {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    try {
      await this.roundTrip();
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** Reads `{code}` off a `pusher:error` frame. */
export function errorCode(frame: Frame): number | null | undefined {
  return (frame.data as { code?: number | null } | undefined)?.code;
}

/** The official server SDK, as an app's auth endpoint uses it to sign subscriptions. */
export function serverSdk(port: number, app: { id: string; key: string; secret: string } = APP): Pusher {
  return new Pusher({
    appId: app.id,
    key: app.key,
    secret: app.secret,
    host: '127.0.0.1',
    port: String(port),
    useTLS: false,
  });
}

export interface ClientUser {
  id: string;
  info?: Record<string, unknown>;
}

/** A pusher-js client whose authorizer signs with the official SDK, as a real app's /broadcasting/auth would. */
export function pusherJs(
  port: number,
  options: { user?: ClientUser; path?: string; sdk?: Pusher; key?: string } = {},
): PusherClient {
  const sdk = options.sdk ?? serverSdk(port);
  const user = options.user ?? { id: '1', info: { name: 'Ada' } };
  return new PusherClient(options.key ?? APP.key, {
    cluster: 'mt1',
    wsHost: '127.0.0.1',
    wsPort: port,
    wsPath: options.path ?? '',
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      endpoint: '/unused',
      transport: 'ajax',
      customHandler: ({ socketId, channelName }, callback) => {
        const presence = channelName.startsWith('presence-');
        callback(
          null,
          sdk.authorizeChannel(
            socketId,
            channelName,
            presence ? { user_id: user.id, user_info: user.info ?? {} } : undefined,
          ),
        );
      },
    },
    userAuthentication: {
      endpoint: '/unused',
      transport: 'ajax',
      customHandler: ({ socketId }, callback) => {
        callback(null, sdk.authenticateUser(socketId, { id: user.id, ...user.info }));
      },
    },
  });
}

/** Resolves once a pusher-js client is connected. */
export function connected(client: PusherClient): Promise<void> {
  return new Promise((resolve) => {
    if (client.connection.state === 'connected') return resolve();
    client.connection.bind('connected', () => resolve());
  });
}

/** Resolves with the first call of a callback-style binding. */
export function once<T>(bind: (handler: (value: T) => void) => void, timeoutMs = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Timed out')), timeoutMs);
    bind((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

let markers = 0;

/**
 * Publishes a marker event on a channel and waits until each client got it. Every frame the server sent them
 * before has arrived by then, so the absence of one can be asserted without sleeping.
 */
export async function publishMarker(
  server: RealtimeServer,
  channel: string,
  clients: RawClient[],
): Promise<string> {
  const event = `marker-${++markers}`;
  server.publish(APP.id, { channels: [channel], event, data: '{}' });
  await Promise.all(clients.map((client) => client.next(event)));
  return event;
}

/**
 * Publishes a marker event on a channel and waits until each pusher-js subscription got it: every frame the
 * server sent those sockets before has arrived by then, so the absence of one can be asserted without sleeping.
 */
export async function publishMarkerTo(
  server: RealtimeServer,
  channel: string,
  subscriptions: ReadonlyArray<{ bind(event: string, handler: () => void): unknown }>,
): Promise<void> {
  const event = `marker-${++markers}`;
  let arrived = 0;
  for (const subscription of subscriptions) subscription.bind(event, () => (arrived += 1));
  server.publish(APP.id, { channels: [channel], event, data: '{}' });
  await until(() => arrived === subscriptions.length, `${event} on every subscription`);
}

/**
 * Rows for `test.each(...)('%s', …)`: each row paired with its title, so a table's titles read as whole
 * sentences (`$field` would quote the value and cut it at 40 characters).
 */
export function titled<T>(rows: readonly T[], title: (row: T) => string): Array<[string, T]> {
  return rows.map((row) => [title(row), row]);
}
