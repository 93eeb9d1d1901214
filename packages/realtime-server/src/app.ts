import { DefaultLimits, type PreviousSecret } from '@herald/protocol-core';
import type { HistoryLimits } from './history/types.js';
import type { ConnectionLimits } from './rate-limits.js';

/** Who may send client events on private and presence channels. */
export type ClientEventSenders = 'all' | 'members' | 'none';

/** An application as the server is given it: credentials, switches and limits (camelCase config keys). */
export interface RealtimeApp {
  readonly id: string;
  readonly key: string;
  readonly secret: string;
  /**
   * Secrets replaced by a rotation, accepted for channel and user auth until their `until` (epoch ms): clients
   * whose auth endpoint still signs with the old secret keep working through the grace period.
   */
  readonly previousSecrets?: readonly PreviousSecret[];
  readonly name?: string;
  /** Disabled apps refuse connections with 4003. Default true. */
  readonly enabled?: boolean;
  /** Connections allowed at once; over it, new sockets get 4004. Default 100. */
  readonly maxConnections?: number;
  /** Maps to `acceptClientEventsFrom` all/none when that is absent. Default true. */
  readonly enableClientMessages?: boolean;
  /**
   * Who may send client events on a private or presence channel: `members` (the default of most configs) and
   * `all` both accept any socket subscribed to that channel — the subscription is what authorized it; a socket
   * that is not subscribed is refused in every mode. `none` refuses client events.
   */
  readonly acceptClientEventsFrom?: ClientEventSenders;
  /** Exact origins, host patterns (`*.example.com`) or `*`. Default `['*']`. */
  readonly allowedOrigins?: readonly string[];
  /** Seconds of silence after which the client pings; sent in `connection_established`. */
  readonly activityTimeout?: number;
  /** Seconds between the server's checks for silent sockets (ping, then 4201). */
  readonly pingInterval?: number;
  /** Largest inbound frame in bytes; larger frames close the socket. Default 10000. */
  readonly maxMessageSize?: number;
  readonly maxPresenceMembersPerChannel?: number;
  readonly maxPresenceMemberSizeInKb?: number;
  readonly maxEventPayloadInKb?: number;
  readonly maxEventNameLength?: number;
  readonly maxChannelNameLength?: number;
  /** Seconds a cache channel keeps its last event. Default 1800 (Pusher keeps it 30 minutes). */
  readonly cacheTtl?: number;
  /**
   * Send `pusher_internal:subscription_count` to the subscribers of non-presence channels when the channel's
   * (cluster-wide) count changes, at most once per channel every `subscriptionCountIntervalMs`. Default false.
   */
  readonly enableSubscriptionCount?: boolean;
  /** The shortest time between two subscription count updates of one channel. Default 500 ms. */
  readonly subscriptionCountIntervalMs?: number;
  /** Client events one socket may send per second (Pusher allows 10); over it, 4301. Off when absent. */
  readonly maxClientEventsPerSecond?: number;
  /** Frames of any kind one socket may send per second; over it, 4301. Off when absent. */
  readonly maxMessagesPerSecond?: number;
  /** Close a socket with 4009 once it goes over `maxMessagesPerSecond`. Default false. */
  readonly terminateOnMessageLimit?: boolean;
  /**
   * Channel history: events get per-channel serials and a client that comes back (with `@herald/recovery`) is sent
   * what it missed. Off by default; frames of apps without it are unchanged.
   */
  readonly history?: AppHistory;
  /**
   * Authorised connections: a socket that neither signs in nor subscribes to a private or presence channel within
   * the timeout (from `pusher:connection_established`) is closed with 4009. Off by default.
   */
  readonly authorizedConnections?: AuthorizedConnections;
}

/** An app's authorised-connections settings. */
export interface AuthorizedConnections {
  /** Default false. */
  readonly enabled?: boolean;
  /** Seconds a socket has to sign in or subscribe to a private or presence channel. Default 30. */
  readonly timeoutSeconds?: number;
}

/** An app's history settings. */
export interface AppHistory {
  /** Default false. */
  readonly enabled?: boolean;
  /** Events kept per channel. Default 100. */
  readonly maxEventsPerChannel?: number;
  /** Seconds an event is kept. Default 300. */
  readonly maxAgeSeconds?: number;
}

/** An application with every default applied. */
export interface ResolvedApp {
  readonly id: string;
  readonly key: string;
  readonly secret: string;
  readonly previousSecrets: readonly PreviousSecret[];
  readonly name: string;
  readonly enabled: boolean;
  readonly maxConnections: number;
  readonly clientEvents: ClientEventSenders;
  readonly allowedOrigins: readonly string[];
  readonly activityTimeout: number;
  readonly pingInterval: number;
  readonly maxMessageSize: number;
  readonly maxPresenceMembersPerChannel: number;
  readonly maxPresenceMemberBytes: number;
  readonly maxEventPayloadBytes: number;
  readonly maxEventNameLength: number;
  readonly maxChannelNameLength: number;
  readonly cacheTtlMs: number;
  readonly subscriptionCount: boolean;
  readonly subscriptionCountIntervalMs: number;
  readonly connectionLimits: ConnectionLimits;
  /** Undefined when history is off: the fan-out checks only this. */
  readonly history: HistoryLimits | undefined;
  /** Milliseconds a socket has to authorise itself; undefined when authorised connections are off. */
  readonly authorizeWithinMs: number | undefined;
}

/** Server-wide fallbacks for per-app timing. */
export interface AppFallbacks {
  readonly activityTimeout: number;
  readonly pingInterval: number;
}

/** Applies defaults to an application's settings. */
export function resolveApp(app: RealtimeApp, fallbacks: AppFallbacks): ResolvedApp {
  return {
    id: app.id,
    key: app.key,
    secret: app.secret,
    previousSecrets: app.previousSecrets ?? [],
    name: app.name ?? app.id,
    enabled: app.enabled ?? true,
    maxConnections: app.maxConnections ?? 100,
    clientEvents: app.acceptClientEventsFrom ?? (app.enableClientMessages === false ? 'none' : 'all'),
    allowedOrigins: app.allowedOrigins ?? ['*'],
    activityTimeout: app.activityTimeout ?? fallbacks.activityTimeout,
    pingInterval: app.pingInterval ?? fallbacks.pingInterval,
    maxMessageSize: app.maxMessageSize ?? 10_000,
    maxPresenceMembersPerChannel:
      app.maxPresenceMembersPerChannel ?? DefaultLimits.maxPresenceMembersPerChannel,
    maxPresenceMemberBytes: (app.maxPresenceMemberSizeInKb ?? DefaultLimits.maxPresenceMemberSizeInKb) * 1024,
    maxEventPayloadBytes: (app.maxEventPayloadInKb ?? DefaultLimits.maxEventPayloadInKb) * 1024,
    maxEventNameLength: app.maxEventNameLength ?? DefaultLimits.maxEventNameLength,
    maxChannelNameLength: app.maxChannelNameLength ?? DefaultLimits.maxChannelNameLength,
    cacheTtlMs: (app.cacheTtl ?? 1800) * 1000,
    subscriptionCount: app.enableSubscriptionCount ?? false,
    subscriptionCountIntervalMs: app.subscriptionCountIntervalMs ?? 500,
    connectionLimits: {
      messagesPerSecond: app.maxMessagesPerSecond,
      clientEventsPerSecond: app.maxClientEventsPerSecond,
      terminateOnLimit: app.terminateOnMessageLimit,
    },
    history: app.history?.enabled
      ? {
          maxEvents: app.history.maxEventsPerChannel ?? 100,
          maxAgeMs: (app.history.maxAgeSeconds ?? 300) * 1000,
        }
      : undefined,
    authorizeWithinMs: app.authorizedConnections?.enabled
      ? (app.authorizedConnections.timeoutSeconds ?? 30) * 1000
      : undefined,
  };
}
