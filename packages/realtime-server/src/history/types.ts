// The history port: where channel serials are assigned and recent frames kept. The server alone uses the in-memory
// log (`memory-history.ts`); a cluster passes a store every node shares (Redis Streams in `@herald/scaling-redis`),
// so serials are assigned once for the cluster and any node can replay any channel.

import type { Awaitable, HistoryPosition, RecoveryFailure } from '@herald/protocol-core';

/** An app's history bounds, resolved from its config. */
export interface HistoryLimits {
  /** Events kept per channel; older ones are dropped. */
  readonly maxEvents: number;
  /** Age in ms after which an event is dropped. */
  readonly maxAgeMs: number;
}

/** What a replay read answers: the frames after the position, or why history cannot reach back. */
export type HistoryRead =
  | { readonly ok: true; readonly frames: readonly string[] }
  | { readonly ok: false; readonly failure: RecoveryFailure; readonly position: HistoryPosition };

/** What {@link ChannelHistory.list} answers: kept frames after a serial, and where the channel stands. */
export interface HistoryList {
  readonly position: HistoryPosition;
  readonly firstSerial: number | null;
  readonly frames: readonly string[];
}

/** What an app's history holds: events, and bytes of their frames. */
export interface HistorySize {
  readonly events: number;
  readonly bytes: number;
}

/**
 * Assigns per-channel serials and keeps each channel's recent frames. Answers are {@link Awaitable}: a store in
 * memory answers at once and the server goes on synchronously (no gap between replay and live), a shared store with
 * promises, resolved in the order asked per channel.
 */
export interface ChannelHistory {
  /**
   * Assigns the channel's next serial, encodes the frame with it (`encode` is called once) and keeps the frame;
   * answers the frame to fan out.
   */
  append(
    appId: string,
    channel: string,
    encode: (position: HistoryPosition) => string,
    limits: HistoryLimits,
  ): Awaitable<string>;
  /** The channel's current position: the last serial assigned (0 before the first) and the epoch. */
  position(appId: string, channel: string, limits: HistoryLimits): Awaitable<HistoryPosition>;
  /** The frames after `after`, in order, or a failure with its reason and the first serial still held. */
  read(appId: string, channel: string, after: HistoryPosition, limits: HistoryLimits): Awaitable<HistoryRead>;
  /** Up to `limit` kept events with a serial above `afterSerial`, oldest first, with the channel's position and the first serial still held (null when none). */
  list(
    appId: string,
    channel: string,
    query: { readonly afterSerial: number; readonly limit: number },
    limits: HistoryLimits,
  ): Awaitable<HistoryList>;
  /**
   * What the app's history holds, for the `/metrics` gauges (read at scrape time); absent where a store cannot tell,
   * undefined while it cannot tell yet (a shared store measuring every node's keys answers from a cache).
   */
  size?(appId: string): Awaitable<HistorySize | undefined>;
  /** Forgets an app's history (the app was removed or turned history off). */
  forget(appId: string): void;
  /** Stops the store's timers. */
  close(): void;
}
