import { ProtocolEvent } from './events.js';
import {
  type HistoryPosition,
  RecoveryEvent,
  type RecoveryFailureReason,
  RecoveryField,
} from './recovery.js';

// Server frames are built by string concatenation: one JSON.stringify per field instead of one per object,
// and app event data is embedded as the exact string that was triggered (pusher-js parses it back).

const q = JSON.stringify;

/** The presence snapshot sent in `pusher_internal:subscription_succeeded` on presence channels. */
export interface PresenceSnapshot {
  readonly ids: readonly string[];
  readonly hash: Readonly<Record<string, unknown>>;
  readonly count: number;
}

/** Encodes `pusher:connection_established` with the socket id and the activity timeout in seconds. */
export function encodeConnectionEstablished(socketId: string, activityTimeout: number): string {
  return `{"event":"${ProtocolEvent.ConnectionEstablished}","data":${q(
    `{"socket_id":${q(socketId)},"activity_timeout":${activityTimeout}}`,
  )}}`;
}

/** Encodes `pusher:error` with a code (or null) and a message; `data` is an object as the spec shows. */
export function encodeError(code: number | null, message: string): string {
  return `{"event":"${ProtocolEvent.Error}","data":{"code":${code === null ? 'null' : code},"message":${q(message)}}}`;
}

const PONG = `{"event":"${ProtocolEvent.Pong}","data":{}}`;
const PING = `{"event":"${ProtocolEvent.Ping}","data":{}}`;

/** Encodes `pusher:pong`, the answer to a client's `pusher:ping`. */
export function encodePong(): string {
  return PONG;
}

/** Encodes `pusher:ping`, sent by the server to a silent client. */
export function encodePing(): string {
  return PING;
}

/**
 * Encodes `pusher_internal:subscription_succeeded`; presence channels carry `{presence:{ids,hash,count}}`.
 * Either way `data` is a JSON string, as the protocol specifies: pusher-js would also take an object, but
 * pusher-websocket-java casts `data` to a string before parsing it.
 */
export function encodeSubscriptionSucceeded(
  channel: string,
  presence?: PresenceSnapshot,
  position?: HistoryPosition,
): string {
  const data = presence
    ? q(q({ presence: { ids: presence.ids, hash: presence.hash, count: presence.count } }))
    : '"{}"';
  return `{"event":"${ProtocolEvent.SubscriptionSucceeded}","channel":${q(channel)},"data":${data}${positionFields(position)}}`;
}

// The serial and epoch as extra top-level fields (pusher-js drops them when decoding); nothing without a position,
// so frames of apps without history stay byte for byte as they were.
function positionFields(position: HistoryPosition | undefined): string {
  return position === undefined
    ? ''
    : `,"${RecoveryField.Serial}":${position.serial},"${RecoveryField.Epoch}":${q(position.epoch)}`;
}

/** The body of a refused subscription, as pusher-js reports its own authorization failures. */
export interface SubscriptionErrorData {
  readonly type: 'AuthError' | 'LimitReached' | 'InvalidChannel' | 'ServerError';
  readonly error: string;
  readonly status: number;
}

/** Encodes `pusher:subscription_error`, which Echo's `.error()` receives; the socket stays open. */
export function encodeSubscriptionError(channel: string, data: SubscriptionErrorData): string {
  return `{"event":"${ProtocolEvent.SubscriptionError}","channel":${q(channel)},"data":${q(data)}}`;
}

/** Encodes `pusher_internal:member_added` for the other subscribers of a presence channel. */
export function encodeMemberAdded(channel: string, userId: string, userInfo: unknown): string {
  const data = userInfo === undefined ? { user_id: userId } : { user_id: userId, user_info: userInfo };
  return `{"event":"${ProtocolEvent.MemberAdded}","channel":${q(channel)},"data":${q(q(data))}}`;
}

/** Encodes `pusher_internal:member_removed` once a user's last socket left a presence channel. */
export function encodeMemberRemoved(channel: string, userId: string): string {
  return `{"event":"${ProtocolEvent.MemberRemoved}","channel":${q(channel)},"data":${q(q({ user_id: userId }))}}`;
}

/** Encodes `pusher:cache_miss`, sent after subscribing to a cache channel that holds no event. */
export function encodeCacheMiss(channel: string): string {
  return `{"event":"${ProtocolEvent.CacheMiss}","channel":${q(channel)}}`;
}

/** Encodes `pusher:signin_success` with the `user_data` string exactly as signed. */
export function encodeSigninSuccess(userData: string): string {
  return `{"event":"${ProtocolEvent.SigninSuccess}","data":{"user_data":${q(userData)}}}`;
}

/** Encodes `pusher_internal:subscription_count` for non-presence channels. */
export function encodeSubscriptionCount(channel: string, count: number): string {
  return `{"event":"${ProtocolEvent.SubscriptionCount}","channel":${q(channel)},"data":${q(
    `{"subscription_count":${count}}`,
  )}}`;
}

/** An event delivered on a channel: an app event from the REST API or a client event. */
export interface ChannelEvent {
  readonly event: string;
  readonly channel: string;
  /**
   * App event data: a string is forwarded byte for byte as the JSON string value of `data`; any other value
   * (client events may carry objects) is serialised as JSON.
   */
  readonly data: unknown;
  /** Present on client events in presence channels: the sender's user id. */
  readonly userId?: string;
}

/**
 * Encodes an event on a channel. Serialise a broadcast once with this and send the same string to every
 * subscriber. With a `position` (apps with history on) the frame also carries `herald_serial` and `herald_epoch`.
 *
 * @example
 * encodeChannelEvent({ event: 'order.shipped', channel: 'orders', data: '{"id":42}' })
 * // '{"event":"order.shipped","channel":"orders","data":"{\"id\":42}"}'
 */
export function encodeChannelEvent(message: ChannelEvent, position?: HistoryPosition): string {
  const data = message.data === undefined ? '' : `,"data":${q(message.data)}`;
  const user = message.userId === undefined ? '' : `,"user_id":${q(message.userId)}`;
  return `{"event":${q(message.event)},"channel":${q(message.channel)}${data}${user}${positionFields(position)}}`;
}

/** Why a replay could not happen, as `herald:recovery_failed` tells it. */
export interface RecoveryFailure {
  readonly reason: RecoveryFailureReason;
  /** The oldest serial the history still holds for the channel, or null when it holds none. */
  readonly firstSerial: number | null;
}

/**
 * Encodes `herald:recovery_failed` on a channel: `data` (a JSON string, so pusher-js hands `channel.bind` an object)
 * carries `reason` and `first_serial`; the frame carries the channel's current position (when history is on), from
 * which the client goes on.
 */
export function encodeRecoveryFailed(
  channel: string,
  failure: RecoveryFailure,
  position?: HistoryPosition,
): string {
  const data = q(`{"reason":${q(failure.reason)},"first_serial":${failure.firstSerial}}`);
  return `{"event":"${RecoveryEvent.RecoveryFailed}","channel":${q(channel)},"data":${data}${positionFields(position)}}`;
}

/** One entry of `pusher_internal:watchlist_events`: watched users who came online or went offline. */
export interface WatchlistEvent {
  readonly name: 'online' | 'offline';
  readonly user_ids: readonly string[];
}

/** Encodes `pusher_internal:watchlist_events` (sent to a signed-in socket about the users on its watchlist). */
export function encodeWatchlistEvents(events: readonly WatchlistEvent[]): string {
  return `{"event":"${ProtocolEvent.WatchlistEvents}","data":${q(JSON.stringify({ events }))}}`;
}
