// The names Herald adds to the Pusher protocol for history and replay. Nothing here imports anything, so a browser
// client (`@herald/recovery`) takes the same table through the `@herald/protocol-core/recovery` subpath.

/**
 * Extra top-level fields of frames and extra keys of `pusher:subscribe` data. pusher-js and Echo drop unknown
 * top-level fields and send subscribe data as given, so clients without the plugin are unaffected.
 */
export const RecoveryField = {
  /** On a channel event (and a fresh subscription's confirmation): the channel's serial, one more per event. */
  Serial: 'herald_serial',
  /** Beside every serial: the history's life it belongs to; serials restart in a new one (a restart). */
  Epoch: 'herald_epoch',
  /** In `pusher:subscribe` data: the last serial the client saw on the channel. */
  After: 'herald_after',
  /** In `pusher:subscribe` data, beside `herald_after`: the epoch of that serial. */
  AfterEpoch: 'herald_epoch',
} as const;

/** Events Herald sends beside the protocol's own. */
export const RecoveryEvent = {
  /** The channel's history cannot reach back to the client's position: the app should refetch its state. */
  RecoveryFailed: 'herald:recovery_failed',
} as const;

/**
 * Why history could not reach back: `disabled` (the app keeps no history), `trimmed` (dropped to stay within the
 * event count or byte cap), `expired` (older than the app's maximum age), `restarted` (the position is from an
 * earlier life of the history, e.g. before a restart, or unknown).
 */
export type RecoveryFailureReason = 'disabled' | 'trimmed' | 'expired' | 'restarted';

/** A place in a channel's history: a serial and the epoch it belongs to. */
export interface HistoryPosition {
  readonly serial: number;
  readonly epoch: string;
}
