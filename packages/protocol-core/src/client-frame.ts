import { isClientEventName, ProtocolEvent } from './events.js';
import type { HistoryPosition } from './recovery.js';
import { RecoveryField } from './recovery.js';
import { fail, ok, type Result } from './result.js';

/** A frame a client may send, parsed and typed (Pusher protocol v7, "Client -> Pusher channels events"). */
export type ClientFrame =
  | { readonly type: 'ping' }
  | { readonly type: 'pong' }
  | {
      readonly type: 'subscribe';
      readonly channel: string;
      readonly auth: string | undefined;
      /** The presence `channel_data` exactly as sent: the signature covers this string. */
      readonly channelData: string | undefined;
      /** Herald's replay: the last position the client saw (`herald_after` and `herald_epoch`), when it sent one. */
      readonly after?: HistoryPosition;
    }
  | { readonly type: 'unsubscribe'; readonly channel: string }
  | { readonly type: 'signin'; readonly auth: string; readonly userData: string }
  | {
      readonly type: 'client-event';
      readonly event: string;
      readonly channel: string;
      readonly data: unknown;
    };

/** Why a frame could not be parsed. */
export interface FrameError {
  readonly reason: 'not_json' | 'not_an_object' | 'missing_event' | 'invalid_field' | 'unknown_event';
  readonly message: string;
  /** The field at fault, when there is one (`data.channel`, `event`, …). */
  readonly field?: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, message: string): { ok: false; error: FrameError } {
  return fail({ reason: 'invalid_field', field, message });
}

// Some clients send `data` as a JSON-encoded string instead of an object; accept both.
function dataObject(frame: Json): Json | undefined {
  const data = frame.data;
  if (isObject(data)) return data;
  if (typeof data === 'string') {
    try {
      const parsed: unknown = JSON.parse(data);
      return isObject(parsed) ? parsed : undefined;
    } catch {
      // Not JSON: the caller reports the field as invalid.
      return undefined;
    }
  }
  return undefined;
}

function optionalString(data: Json, key: string): Result<string | undefined, FrameError> {
  const value = data[key];
  if (value === undefined || value === null) return ok(undefined);
  if (typeof value !== 'string') return invalid(`data.${key}`, `data.${key} must be a string`);
  return ok(value);
}

function requiredString(data: Json, key: string): Result<string, FrameError> {
  const value = data[key];
  if (typeof value !== 'string' || value.length === 0) {
    return invalid(`data.${key}`, `data.${key} must be a non-empty string`);
  }
  return ok(value);
}

function parseSubscribe(frame: Json): Result<ClientFrame, FrameError> {
  const data = dataObject(frame);
  if (!data) return invalid('data', 'pusher:subscribe needs a data object');
  const channel = requiredString(data, 'channel');
  if (!channel.ok) return channel;
  const auth = optionalString(data, 'auth');
  if (!auth.ok) return auth;
  const channelData = optionalString(data, 'channel_data');
  if (!channelData.ok) return channelData;
  const subscribe = {
    type: 'subscribe',
    channel: channel.value,
    auth: auth.value,
    channelData: channelData.value,
  } as const;
  if (data[RecoveryField.After] === undefined) return ok(subscribe);
  const after = parsePosition(data);
  if (!after.ok) return after;
  return ok({ ...subscribe, after: after.value });
}

// `herald_after` is a serial (a whole number, 0 before the first event); an absent epoch is kept as '' so the server
// answers it as an unknown life rather than refusing the subscription.
function parsePosition(data: Json): Result<HistoryPosition, FrameError> {
  const serial = data[RecoveryField.After];
  if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 0) {
    return invalid(`data.${RecoveryField.After}`, `data.${RecoveryField.After} must be a whole number >= 0`);
  }
  const epoch = optionalString(data, RecoveryField.AfterEpoch);
  if (!epoch.ok) return epoch;
  return ok({ serial, epoch: epoch.value ?? '' });
}

function parseUnsubscribe(frame: Json): Result<ClientFrame, FrameError> {
  const data = dataObject(frame);
  if (!data) return invalid('data', 'pusher:unsubscribe needs a data object');
  const channel = requiredString(data, 'channel');
  if (!channel.ok) return channel;
  return ok({ type: 'unsubscribe', channel: channel.value });
}

function parseSignin(frame: Json): Result<ClientFrame, FrameError> {
  const data = dataObject(frame);
  if (!data) return invalid('data', 'pusher:signin needs a data object');
  const auth = requiredString(data, 'auth');
  if (!auth.ok) return auth;
  const userData = requiredString(data, 'user_data');
  if (!userData.ok) return userData;
  return ok({ type: 'signin', auth: auth.value, userData: userData.value });
}

function parseClientEvent(event: string, frame: Json): Result<ClientFrame, FrameError> {
  const channel = frame.channel;
  if (typeof channel !== 'string' || channel.length === 0) {
    return invalid('channel', 'A client event needs a channel');
  }
  if (!('data' in frame)) return invalid('data', 'A client event needs data');
  return ok({ type: 'client-event', event, channel, data: frame.data });
}

/**
 * Parses one text frame from a client into a typed frame. Never throws: a frame that is not JSON, not an
 * object, or has fields of the wrong type gives an error that names the problem.
 *
 * @example
 * parseClientFrame('{"event":"pusher:subscribe","data":{"channel":"news"}}')
 * // { ok: true, value: { type: 'subscribe', channel: 'news', auth: undefined, channelData: undefined } }
 */
export function parseClientFrame(text: string): Result<ClientFrame, FrameError> {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return fail({ reason: 'not_json', message: 'Frame is not valid JSON' });
  }
  if (!isObject(frame)) return fail({ reason: 'not_an_object', message: 'Frame must be a JSON object' });
  const event = frame.event;
  if (typeof event !== 'string' || event.length === 0) {
    return fail({ reason: 'missing_event', field: 'event', message: 'Frame needs a string "event"' });
  }
  switch (event) {
    case ProtocolEvent.Ping:
      return ok({ type: 'ping' });
    case ProtocolEvent.Pong:
      return ok({ type: 'pong' });
    case ProtocolEvent.Subscribe:
      return parseSubscribe(frame);
    case ProtocolEvent.Unsubscribe:
      return parseUnsubscribe(frame);
    case ProtocolEvent.Signin:
      return parseSignin(frame);
    default:
      if (isClientEventName(event)) return parseClientEvent(event, frame);
      return fail({
        reason: 'unknown_event',
        field: 'event',
        message: `Unsupported event "${event.slice(0, 64)}"`,
      });
  }
}
