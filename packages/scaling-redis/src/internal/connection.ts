import { createClient, createCluster } from 'redis';
import { ScalingRedisError } from '../errors.js';
import type { RedisRootNode, RedisServerOptions } from '../redis-options.js';
import { hashSlot } from './slot.js';

/** The few things the adapter needs from Redis, the same over one server or a cluster. */
export interface RedisLink {
  readonly clusterMode: boolean;
  /** Runs a raw command, routed by `key` in a cluster. Rejects at once while disconnected (no offline queue). */
  send(key: string | undefined, args: readonly string[]): Promise<unknown>;
  /** Publishes on the broadcast channel (SPUBLISH in a cluster). */
  publish(channel: string, message: string): Promise<unknown>;
  /** In a cluster, the master that serves the channel's slot right now (publishes are bounded per master). */
  shardOf?(channel: string): unknown;
  /** How many connections are subscribed to the channel (PUBSUB NUMSUB, or SHARDNUMSUB in a cluster). */
  subscribers(channel: string): Promise<number>;
  /**
   * Subscribes on the subscriber connection (SSUBSCRIBE in a cluster, where every channel of one call must share a
   * slot); resolves once Redis acknowledged it. node-redis resubscribes after a reconnect.
   */
  subscribe(channels: string | readonly string[], listener: (message: string) => void): Promise<void>;
  /** Removes `listener` from the channels (SUNSUBSCRIBE in a cluster: one slot per call). */
  unsubscribe(channels: readonly string[], listener: (message: string) => void): Promise<void>;
  /** Whether every connection is up (in a cluster: to every master, subscriber connections included). */
  ready(): boolean;
  /** Connects, or rejects after `timeout` seconds (node-redis alone would retry a first connect forever). */
  connect(): Promise<void>;
  /** Closes gracefully. */
  close(): Promise<void>;
  /** Drops every socket at once, without any goodbye. */
  destroy(): void;
  /**
   * One sender per master (the server itself on a single Redis), for what each master answers for its own keys only
   * (SCAN). Connects to a master the cluster client has not needed yet.
   */
  masters(): Promise<readonly MasterLink[]>;
}

/** Commands to one master, unrouted: its keys only. */
export interface MasterLink {
  /** `host:port` of the master ('' on a single Redis). */
  readonly address: string;
  send(args: readonly string[]): Promise<unknown>;
}

export interface LinkEvents {
  error(error: Error): void;
  /** A connection became ready again (after the first connect). */
  ready(): void;
  reconnecting(): void;
}

/** Backoff between reconnect attempts: 50 ms doubling to 2 s, with jitter so nodes do not reconnect in step. */
export function reconnectDelay(retries: number): number {
  const base = Math.min(50 * 2 ** Math.min(retries, 10), 2000);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

function rootNodeUrl(node: RedisRootNode): string {
  return typeof node === 'string' ? node : `redis://${node.host}:${node.port}`;
}

/** Checks the options that would otherwise fail deep inside node-redis. */
export function validateServerOptions(options: RedisServerOptions): void {
  if (options.clusterMode && options.database !== undefined && options.database !== 0) {
    throw new ScalingRedisError('invalid_options', 'A Redis Cluster has only database 0');
  }
  if (options.timeout !== undefined && !(options.timeout > 0)) {
    throw new ScalingRedisError('invalid_options', 'timeout must be a positive number of seconds');
  }
}

/** A node-redis client for one Redis, or a cluster client; no offline queue, backoff on reconnect, RESP2 replies. */
export function createNodeRedis(options: RedisServerOptions) {
  validateServerOptions(options);
  const credentials = {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
  };
  const socket = {
    connectTimeout: Math.round((options.timeout ?? 5) * 1000),
    reconnectStrategy: reconnectDelay,
  };
  if (options.clusterMode) {
    const rootNodes = (
      options.rootNodes?.length
        ? options.rootNodes
        : [options.url ?? { host: options.host ?? '127.0.0.1', port: options.port ?? 6379 }]
    ).map((node) => ({ url: rootNodeUrl(node) }));
    return {
      kind: 'cluster',
      cluster: createCluster({
        rootNodes,
        RESP: 2,
        defaults: { ...credentials, socket, disableOfflineQueue: true },
      }),
    } as const;
  }
  return {
    kind: 'client',
    client: createClient({
      ...credentials,
      ...(options.url === undefined ? {} : { url: options.url }),
      ...(options.database === undefined ? {} : { database: options.database }),
      RESP: 2,
      disableOfflineQueue: true,
      socket: {
        ...socket,
        ...(options.url === undefined
          ? { host: options.host ?? '127.0.0.1', port: options.port ?? 6379 }
          : {}),
      },
    }),
  } as const;
}

/**
 * Publishes waiting for one Redis (in a cluster: for one master) at most. Publishes carry no per-command timeout
 * (see `PUBLISH_OPTIONS`), so this is what bounds them when Redis stops answering without closing the connection:
 * past it a publish fails at once, as a publish to an unreachable Redis does, instead of queueing without end. Per
 * master, so one stalled master does not stop the publishes that go to the others.
 */
export const MAX_PUBLISHES_IN_FLIGHT = 10_000;

// node-redis arms an `AbortSignal.timeout` (5 s by default) for every command: a timer and a signal that live the
// full 5 s even after the reply, about a fifth of a cluster trigger's JS time, and 50 000 live timers at 10 000
// publishes/s. A publish is fire-and-forget: the in-flight bound above replaces the timeout, and a reconnect
// rejects whatever was waiting.
const PUBLISH_OPTIONS = { timeout: 0 } as const;

/** Opens (lazily, on `connect`) a command connection and a subscriber connection to one Redis or a cluster. */
export function createRedisLink(
  options: RedisServerOptions,
  events: LinkEvents,
  {
    subscriber: withSubscriber = true,
    maxPublishesInFlight = MAX_PUBLISHES_IN_FLIGHT,
  }: { readonly subscriber?: boolean; readonly maxPublishesInFlight?: number } = {},
): RedisLink {
  const made = createNodeRedis(options);
  const link =
    made.kind === 'cluster'
      ? clusterLink(made.cluster, events)
      : clientLink(made.client, events, withSubscriber);
  const giveUpMs = Math.round((options.timeout ?? 5) * 1000);
  // Publishes waiting, by master (one entry, under `undefined`, for a single Redis).
  const inFlight = new Map<unknown, number>();
  return {
    ...link,
    publish(channel, message) {
      const shard = link.shardOf?.(channel);
      const waiting = inFlight.get(shard) ?? 0;
      if (waiting >= maxPublishesInFlight) {
        return Promise.reject(
          new Error(`${maxPublishesInFlight} publishes are waiting for Redis: it is not answering`),
        );
      }
      inFlight.set(shard, waiting + 1);
      const settled = () => {
        const left = (inFlight.get(shard) ?? 1) - 1;
        if (left > 0) inFlight.set(shard, left);
        else inFlight.delete(shard);
      };
      const sent = link.publish(channel, message);
      sent.then(settled, settled);
      return sent;
    },
    async connect() {
      let giveUp: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        giveUp = setTimeout(
          () => reject(new Error(`no connection to Redis within ${giveUpMs} ms`)),
          giveUpMs,
        );
      });
      const attempt = link.connect();
      // Observed here too: once the deadline wins, the abandoned attempt's rejection must not go unhandled.
      attempt.catch(() => {});
      try {
        await Promise.race([attempt, deadline]);
      } catch (error) {
        link.destroy();
        throw error;
      } finally {
        clearTimeout(giveUp);
      }
    },
  };
}

type NodeRedis = ReturnType<typeof createNodeRedis>;

const listOf = (channels: string | readonly string[]) =>
  typeof channels === 'string' ? channels : [...channels];

/** The count of a `[channel, count]` NUMSUB reply. */
const countOf = (reply: unknown) => (Array.isArray(reply) ? Number(reply[1] ?? 0) : 0);

function clusterLink(
  cluster: Extract<NodeRedis, { kind: 'cluster' }>['cluster'],
  events: LinkEvents,
): RedisLink {
  let connected = false;
  // Masters being reconnected to: only their clients' `ready` means "ready again". A sharded subscriber client
  // connects to a master the first time a channel of its slots is subscribed, which is no reconnect.
  const reconnecting = new Set<string>();
  const address = (node: { host?: string; port?: number }) => `${node.host}:${node.port}`;
  cluster.on('error', (error: Error) => events.error(error));
  cluster.on('node-error', (error: Error) => events.error(error));
  cluster.on('node-reconnecting', (node: { host?: string; port?: number }) => {
    reconnecting.add(address(node));
    events.reconnecting();
  });
  cluster.on('node-ready', (node: { host?: string; port?: number }) => {
    if (connected && reconnecting.delete(address(node))) events.ready();
  });
  return {
    clusterMode: true,
    send: (key, args) => cluster.sendCommand(key, false, [...args]),
    // Raw, because the cluster's named commands read the options of the cluster itself, not of a
    // `withCommandOptions` copy; `sendCommand` merges the options it is given.
    publish: (channel, message) =>
      cluster.sendCommand(channel, false, ['SPUBLISH', channel, message], PUBLISH_OPTIONS),
    shardOf: (channel) => cluster.slots[hashSlot(channel)]?.master,
    subscribers: (channel) =>
      cluster.sendCommand(channel, false, ['PUBSUB', 'SHARDNUMSUB', channel]).then(countOf),
    subscribe: (channels, listener) => cluster.sSubscribe(listOf(channels), listener),
    unsubscribe: (channels, listener) => cluster.sUnsubscribe(listOf(channels), listener),
    ready: () =>
      cluster.isReady &&
      cluster.masters.every(
        (master) => (master.client?.isReady ?? true) && (master.pubSub?.client.isReady ?? true),
      ),
    async connect() {
      await cluster.connect();
      connected = true;
    },
    close: () => cluster.close(),
    destroy: () => {
      if (cluster.isOpen) cluster.destroy();
    },
    masters: () =>
      Promise.all(
        cluster.masters.map(async (master) => {
          const client = await cluster.nodeClient(master);
          return {
            address: address(master),
            send: (args: readonly string[]) => client.sendCommand([...args]),
          };
        }),
      ),
  };
}

function clientLink(
  client: Extract<NodeRedis, { kind: 'client' }>['client'],
  events: LinkEvents,
  withSubscriber: boolean,
): RedisLink {
  const subscriber = client.duplicate();
  let connected = false;
  for (const each of [client, subscriber]) {
    each.on('error', (error: Error) => events.error(error));
    each.on('reconnecting', () => events.reconnecting());
  }
  client.on('ready', () => {
    if (connected) events.ready();
  });
  const publisher = client.withCommandOptions(PUBLISH_OPTIONS);
  return {
    clusterMode: false,
    send: (_key, args) => client.sendCommand([...args]),
    publish: (channel, message) => publisher.publish(channel, message),
    subscribers: (channel) => client.sendCommand(['PUBSUB', 'NUMSUB', channel]).then(countOf),
    subscribe: (channels, listener) => subscriber.subscribe(listOf(channels), listener),
    unsubscribe: (channels, listener) => subscriber.unsubscribe(listOf(channels), listener),
    ready: () => client.isReady && (!withSubscriber || subscriber.isReady),
    async connect() {
      await Promise.all([client.connect(), withSubscriber ? subscriber.connect() : undefined]);
      connected = true;
    },
    async close() {
      await Promise.allSettled([client.close(), withSubscriber ? subscriber.close() : undefined]);
    },
    destroy() {
      // destroy() throws on a client that is not open (never connected, or already closed).
      if (client.isOpen) client.destroy();
      if (withSubscriber && subscriber.isOpen) subscriber.destroy();
    },
    masters: async () => [{ address: '', send: (args) => client.sendCommand([...args]) }],
  };
}
