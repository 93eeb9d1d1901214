// The plugin: it remembers each channel's last position from the raw frames and hands it to the server with the
// next `pusher:subscribe` of that channel, which pusher-js sends by itself after a reconnect.
//
// Why these two hooks (checked against pusher-js 8.x): pusher-js's `Protocol.decodeMessage` keeps only `event`,
// `channel`, `data` and `user_id` of a frame, so `herald_serial` never reaches `channel.bind`. The least internal
// place that still sees the whole frame is the transport of the current connection (`pusher.connection.connection
// .transport`), an event dispatcher whose `message` event carries the raw text; a new one comes with every
// connection, so the plugin binds to it on each `connected`. Outgoing, `Channel.subscribe` and `unsubscribe` call the
// public `pusher.send_event(name, data)`, which the plugin wraps to add the position. Frames are only read, never
// re-dispatched, so the app's handlers see each event once, as pusher-js delivers it.

import { type HistoryPosition, RecoveryField } from '@herald/protocol-core/recovery';

type Listener = (payload: unknown) => void;

/** What the plugin needs of a pusher-js `Pusher` instance (`echo.connector.pusher` for Laravel Echo). */
export interface RecoverablePusher {
  send_event(name: string, data: unknown, channel?: string): boolean;
  readonly connection: {
    bind(event: string, callback: Listener): unknown;
    readonly state?: string;
    readonly connection?: {
      readonly transport?: { bind(event: string, callback: Listener): unknown } | null;
    } | null;
  };
}

/** What {@link enableRecovery} returns. */
export interface Recovery {
  /** The last position seen on a channel, if any. */
  position(channel: string): HistoryPosition | undefined;
  /** Stops adding positions to subscriptions (frames are no longer read). */
  disable(): void;
}

const SUBSCRIBE = 'pusher:subscribe';
const UNSUBSCRIBE = 'pusher:unsubscribe';

/**
 * Makes a pusher-js client recover missed events after a reconnect, from a Herald server with history on.
 *
 * @example
 * const pusher = new Pusher('app-key', { wsHost: 'realtime.example.com', cluster: '' });
 * enableRecovery(pusher);
 * // Laravel Echo: enableRecovery(echo.connector.pusher);
 */
export function enableRecovery(pusher: RecoverablePusher): Recovery {
  const positions = new Map<string, HistoryPosition>();
  const bound = new WeakSet<object>();
  let enabled = true;

  const onFrame: Listener = (message) => {
    if (!enabled) return;
    const data = (message as { data?: unknown } | null)?.data;
    if (data === undefined || data === null) return;
    // Read as pusher-js reads it (`JSON.parse(data)` turns a Node Buffer into its text); most frames carry no
    // position and are skipped without being parsed a second time.
    const text = typeof data === 'string' ? data : String(data);
    if (!text.includes(RecoveryField.Serial)) return;
    const position = readPosition(text);
    if (position) positions.set(position.channel, { serial: position.serial, epoch: position.epoch });
  };

  const attach = (): void => {
    const transport = pusher.connection.connection?.transport;
    if (!transport || bound.has(transport)) return;
    bound.add(transport);
    transport.bind('message', onFrame);
  };
  pusher.connection.bind('connected', attach);
  if (pusher.connection.state === 'connected') attach();

  const send = pusher.send_event.bind(pusher);
  pusher.send_event = (name, data, channel) =>
    send(name, enabled ? withPosition(positions, name, data) : data, channel);

  return {
    position: (channel) => positions.get(channel),
    disable() {
      enabled = false;
    },
  };
}

function withPosition(positions: Map<string, HistoryPosition>, name: string, data: unknown): unknown {
  if (name !== SUBSCRIBE && name !== UNSUBSCRIBE) return data;
  const channel = (data as { channel?: unknown } | null)?.channel;
  if (typeof channel !== 'string') return data;
  if (name === UNSUBSCRIBE) {
    // Leaving on purpose: a later subscribe starts afresh.
    positions.delete(channel);
    return data;
  }
  const position = positions.get(channel);
  if (!position) return data;
  return {
    ...(data as object),
    [RecoveryField.After]: position.serial,
    [RecoveryField.AfterEpoch]: position.epoch,
  };
}

function readPosition(text: string): (HistoryPosition & { readonly channel: string }) | undefined {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    // Not JSON: pusher-js reports it; nothing to remember.
    return undefined;
  }
  if (typeof frame !== 'object' || frame === null) return undefined;
  const fields = frame as Record<string, unknown>;
  const channel = fields.channel;
  const serial = fields[RecoveryField.Serial];
  const epoch = fields[RecoveryField.Epoch];
  if (typeof channel !== 'string' || typeof serial !== 'number' || typeof epoch !== 'string')
    return undefined;
  return { channel, serial, epoch };
}
