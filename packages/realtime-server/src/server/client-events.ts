// Client events (`client-*`): checked against the app's switches and limits, then relayed from the sender to every
// other subscriber of the channel.

import { type ClientFrame, describeChannel, ErrorCode, encodeChannelEvent } from '@herald/protocol-core';
import { fanOut, publishFrom } from './fan-out.js';
import { appendToHistory } from './history-append.js';
import { sendError } from './send.js';
import { hasChannel } from './socket-channels.js';
import type { AppState, ServerContext, Socket } from './state.js';

type ClientEventFrame = Extract<ClientFrame, { type: 'client-event' }>;

/** Relays a client event, or answers with 4301 when it is refused. */
export function clientEvent(ctx: ServerContext, ws: Socket, app: AppState, frame: ClientEventFrame): void {
  const data = ws.getUserData();
  const { channel, event } = frame;
  const refusal = clientEventRefusal(ws, app, frame);
  if (refusal !== undefined) {
    ctx.logger.debug('client event refused', {
      scope: 'socket.handler',
      appId: app.config.id,
      socketId: data.socketId,
      channel,
      reason: refusal,
    });
    sendError(ws, app, ErrorCode.ClientEventRejected, refusal);
    return;
  }
  const traits = describeChannel(channel);
  const userId = data.presence?.get(channel);
  const message = { event, channel, data: frame.data, userId: traits.presence ? userId : undefined };
  if (app.config.history === undefined) {
    relay(ctx, ws, app, frame, encodeChannelEvent(message));
  } else {
    appendToHistory(ctx, app, message, (encoded) => relay(ctx, ws, app, frame, encoded));
  }
}

/** Sends a client event's frame to the channel's other subscribers and tells the application event listeners. */
function relay(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  frame: ClientEventFrame,
  encoded: string,
): void {
  const data = ws.getUserData();
  const { channel, event } = frame;
  const userId = data.presence?.get(channel);
  // A socket that closed while a shared history assigned the serial is skipped by id instead.
  const recipients = data.open
    ? publishFrom(ctx, ws, app, channel, encoded, data.socketId)
    : fanOut(ctx, app, channel, encoded, data.socketId);
  const events = ctx.events;
  if (events.has('messageSent')) {
    events.emit('messageSent', { appId: app.config.id, channel, event, recipients }, ctx.reportListenerError);
  }
  if (ctx.debug.active) {
    const size =
      typeof frame.data === 'string'
        ? Buffer.byteLength(frame.data)
        : JSON.stringify(frame.data ?? null).length;
    ctx.debug.emit(app.config.id, { kind: 'client_event', socketId: data.socketId, channel, event, size });
  }
  if (events.has('clientEvent')) {
    const payload = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data ?? null);
    events.emit(
      'clientEvent',
      { appId: app.config.id, channel, event, data: payload, socketId: data.socketId, userId },
      ctx.reportListenerError,
    );
  }
}

/** Why a client event is refused, or undefined when it may be relayed. */
function clientEventRefusal(ws: Socket, app: AppState, frame: ClientEventFrame): string | undefined {
  const data = ws.getUserData();
  const { channel, event } = frame;
  if (app.config.clientEvents === 'none') return 'Client events are not enabled for this app';
  const traits = describeChannel(channel);
  if (!traits.clientEvents) return `Client events are not allowed on ${traits.kind} channels`;
  if (!hasChannel(data.channels, channel))
    return `Subscribe to ${channel} before sending client events on it`;
  // `all` and `members` (the spec's "members of the channel") both mean: subscribed to it. The subscription is
  // what authorized the private or presence channel, so no user identity is asked for on top.
  if (event.length > app.config.maxEventNameLength) {
    return `Event name is longer than ${app.config.maxEventNameLength} characters`;
  }
  // Pusher's limit applies to the data, in bytes (string length would let multi-byte text through at 3x).
  const payload = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data ?? null);
  if (Buffer.byteLength(payload) > app.config.maxEventPayloadBytes) {
    return `Event data is larger than ${app.config.maxEventPayloadBytes} bytes`;
  }
  return undefined;
}
