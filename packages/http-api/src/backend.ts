/** A value, or a promise of it: a local server answers at once, a Redis-backed one asynchronously. */
export type Awaitable<T> = T | Promise<T>;

/** An event to publish to one or more channels of an app. */
export interface PublishedEvent {
  readonly channels: readonly string[];
  readonly event: string;
  /** The event's data exactly as the REST caller sent it (a string, usually JSON): forward it byte for byte. */
  readonly data: string;
  /** The socket that triggered the event and must not receive it (`socket_id`). */
  readonly excludeSocketId?: string | undefined;
}

/** What to list among an app's occupied channels. */
export interface ChannelQuery {
  /** Only channels whose name starts with this (`filter_by_prefix`). */
  readonly prefix?: string | undefined;
}

/** An occupied channel, as listed by `GET /apps/{id}/channels`. */
export interface ChannelSummary {
  readonly name: string;
  readonly subscriptionCount: number;
  /** Distinct users, for presence channels. */
  readonly userCount?: number | undefined;
}

/** The last event a cache channel keeps. */
export interface CachedEvent {
  readonly event: string;
  readonly data: string;
  /** Seconds the cached event has left to live. */
  readonly ttl: number;
}

/** The state of one channel, as `GET /apps/{id}/channels/{name}` reports it. */
export interface ChannelState {
  readonly occupied: boolean;
  readonly subscriptionCount: number;
  /** Distinct users, for presence channels. */
  readonly userCount?: number | undefined;
  /** The kept event of a cache channel, when there is one. */
  readonly cache?: CachedEvent | undefined;
}

/** What to read of a channel's history: events with a serial above `afterSerial`, at most `limit` of them. */
export interface HistoryQuery {
  readonly afterSerial: number;
  readonly limit: number;
}

/** A page of a channel's history as the server keeps it: its event frames, oldest first, and where it stands. */
export interface HistoryPage {
  /** The channel's last serial (0 before the first event) and the epoch serials belong to. */
  readonly position: { readonly serial: number; readonly epoch: string };
  /** The oldest serial still held, or null when none is. */
  readonly firstSerial: number | null;
  /** The kept event frames (Pusher frames with `herald_serial`), exactly as subscribers received them. */
  readonly frames: readonly string[];
}

/** Prometheus exposition text and its content type. */
export interface MetricsText {
  readonly contentType: string;
  readonly body: string;
}

/**
 * The real-time server as the HTTP API sees it: the port the API declares and an app implements by wiring a
 * server (or a cluster through Redis) into it. Every answer covers the whole cluster.
 */
export interface RealtimeBackend {
  /** Sends an event to every subscriber of the channels, except the excluded socket. */
  publish(appId: string, event: PublishedEvent): Awaitable<void>;
  /** Lists the app's occupied channels. */
  channels(appId: string, query: ChannelQuery): Awaitable<readonly ChannelSummary[]>;
  /** Reports one channel of the app (unoccupied channels answer `occupied: false`). */
  channel(appId: string, name: string): Awaitable<ChannelState>;
  /** The ids of the users present on a presence channel. */
  presenceUsers(appId: string, name: string): Awaitable<readonly string[]>;
  /**
   * A channel's kept events after a serial; `undefined` when the app keeps no history. Absent: no app keeps any
   * (the history route answers 409).
   */
  history?(appId: string, name: string, query: HistoryQuery): Awaitable<HistoryPage | undefined>;
  /** Closes a user's signed-in and presence sockets with 4009. */
  terminateUser(appId: string, userId: string): Awaitable<void>;
  /** The server's metrics as Prometheus text. */
  metrics(): Awaitable<MetricsText>;
  /** False while the server drains before a shutdown: `/ready` answers 503. Absent: always ready. */
  ready?(): boolean;
}
