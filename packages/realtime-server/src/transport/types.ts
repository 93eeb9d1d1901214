// The transport port: what the server core needs from whatever carries its sockets and HTTP requests. The core owns
// this contract; each adapter (uWebSockets.js, Node's http) implements it and keeps its own types to itself.

/** TLS files for serving wss:// and https://. */
export interface TlsOptions {
  readonly certFile: string;
  readonly keyFile: string;
  readonly passphrase?: string;
}

/** Which transport to run: the fastest that loads, or one forced. */
export type TransportPreference = 'auto' | 'uws' | 'portable';

/** The name of a transport that runs. */
export type TransportName = 'uws' | 'portable';

/** `send` answers: the frame was written, buffered behind backpressure, or dropped past the backpressure limit. */
export const SendStatus = { Buffered: 0, Sent: 1, Dropped: 2 } as const;

/**
 * One open WebSocket. Its methods mirror the subset of uWebSockets.js's socket the core uses, so the uWS adapter
 * hands its sockets over as they are (no wrapper on the hot path).
 */
export interface TransportSocket<Data> {
  /** The state the core attached at upgrade. */
  getUserData(): Data;
  /** Sends a text frame; see {@link SendStatus}. */
  send(message: string): number;
  /** Receives every later publish to the topic. */
  subscribe(topic: string): boolean;
  unsubscribe(topic: string): boolean;
  /** Sends a text frame to every subscriber of the topic except this socket. */
  publish(topic: string, message: string): boolean;
  /** Sends a close frame with the code and closes; the `close` handler runs before this returns. */
  end(code: number, reason: string): void;
  /** Bytes written to the socket that the peer has not taken yet (held by the transport, not the kernel). */
  getBufferedAmount(): number;
}

/** What the core learns of an upgrade request before the socket opens. */
export interface UpgradeRequest {
  /** The `{key}` of `{path}/app/{key}`. */
  readonly key: string;
  /** The Origin header, '' when absent. */
  readonly origin: string;
  /** The query string without `?`. */
  readonly query: string;
  /** The peer's address as the socket reports it (an IPv4 peer of a dual-stack socket may be `::ffff:a.b.c.d`). */
  readonly remoteAddress: string;
  /** The `X-Forwarded-For` header, '' when absent. */
  readonly forwardedFor: string;
}

/**
 * The core's answer to an upgrade it refuses before any socket exists (e.g. per-address limits): the transport
 * answers with this HTTP status, these headers and a JSON body `{"error": message}`, and never upgrades.
 */
export class UpgradeRefusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** The JSON body of an {@link UpgradeRefusal}. */
export function refusalBody(refusal: UpgradeRefusal): string {
  return JSON.stringify({ error: refusal.message });
}

/** Response headers as a record or a fetch `Headers`. */
export type ResponseHeaders = Headers | Readonly<Record<string, string>>;

/**
 * One HTTP request that is not an upgrade, held by the transport until answered. Headers are read up front (uWS
 * forbids touching its request later); the body arrives in chunks that are only valid during the callback.
 */
export interface HttpExchange {
  /** Upper case. */
  readonly method: string;
  /** The path as received, without the query string. */
  readonly url: string;
  /** The query string without `?`. */
  readonly query: string;
  /** Header values by lower-case name (repeated headers joined with `, `). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The peer's address as the socket reports it, read when asked (only before the answer, and not after an abort:
   * uWS frees the response then). Optional: a transport without it gives handlers no client address.
   */
  remoteAddress?(): string;
  onAborted(listener: () => void): void;
  /** Streams the body; copy a chunk to keep it. `last` is true once, on the final call. */
  onData(listener: (chunk: Uint8Array, last: boolean) => void): void;
  /** Writes the whole answer; `close` ends the connection after it (e.g. after refusing an unread body). */
  respond(status: number, headers: ResponseHeaders, body: Uint8Array | string, close?: boolean): void;
  /**
   * Starts an answer whose body comes in pieces (server-sent events); call instead of `respond`. Optional: a
   * transport without it answers streamed responses whole.
   */
  stream?(status: number, headers: ResponseHeaders): HttpBodyWriter;
}

/** The body of a streamed answer, written piece by piece; nothing may be written after `end` or an abort. */
export interface HttpBodyWriter {
  write(chunk: string): void;
  end(): void;
}

/** What the core does on each transport event. */
export interface TransportHandlers<Data> {
  /**
   * Builds the socket's state from the upgrade request, or refuses it with an HTTP answer (no socket opens). Other
   * refusals (unknown app, origin) complete the upgrade and close after open, as Pusher clients expect.
   */
  upgrade(request: UpgradeRequest): Data | UpgradeRefusal;
  open(socket: TransportSocket<Data>): void;
  message(socket: TransportSocket<Data>, message: ArrayBuffer | Uint8Array): void;
  /** A WebSocket ping or pong arrived. */
  activity(socket: TransportSocket<Data>): void;
  close(socket: TransportSocket<Data>, code: number): void;
  http(exchange: HttpExchange): void;
}

/** Options every transport takes. */
export interface TransportOptions<Data> {
  /** Upgrades are accepted at `{prefix}{key}`, e.g. `/realtime/app/` + key. */
  readonly upgradePrefix: string;
  readonly tls?: TlsOptions | undefined;
  /** Frames larger than this close the socket before the core sees them. */
  readonly maxPayloadLength: number;
  /**
   * Bytes buffered for a slow socket past which further frames to it are dropped: the hard cap on a stalled
   * reader's memory (the core closes slow sockets below it when its policy is to close them).
   */
  readonly maxBackpressure: number;
  readonly handlers: TransportHandlers<Data>;
}

/** A transport bound to the core's handlers: listens, and publishes to topics. */
export interface Transport {
  readonly name: TransportName;
  /** Resolves with the bound port. @throws {RealtimeServerError} `listen_failed`. */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; open sockets stay until the core closes them. */
  stopListening(): void;
  /** Sends a text frame to every subscriber of the topic. */
  publish(topic: string, message: string): void;
  numSubscribers(topic: string): number;
}

/** Builds a transport. */
export type TransportFactory = <Data>(options: TransportOptions<Data>) => Transport;
