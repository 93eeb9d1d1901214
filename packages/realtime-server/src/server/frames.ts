// Where a frame from a client is read: size limit, parse, per-socket rate limits, then dispatch by type.

import {
  type ClientFrame,
  ErrorCode,
  encodePong,
  type FrameError,
  parseClientFrame,
  type Result,
} from '@herald/protocol-core';
import type { SocketRateLimiter } from '../rate-limits.js';
import { clientEvent } from './client-events.js';
import { guard } from './guard.js';
import { closeWith, send, sendError } from './send.js';
import { signin } from './sign-in.js';
import type { AppState, ServerContext, Socket } from './state.js';
import { subscribe } from './subscribe.js';
import { leave } from './unsubscribe.js';

/** Handles one frame from an established socket. */
export function onMessage(ctx: ServerContext, ws: Socket, message: ArrayBuffer | Uint8Array): void {
  const data = ws.getUserData();
  const app = data.app;
  if (!app || !data.open || !data.established) return;
  data.lastSeen = Date.now();
  data.pingedAt = 0;
  app.metrics.received.inc();
  app.metrics.bytesIn.inc(message.byteLength);
  if (message.byteLength > app.config.maxMessageSize) {
    closeWith(
      ws,
      app,
      ErrorCode.Unauthorized,
      `Message of ${message.byteLength} bytes exceeds max_message_size (${app.config.maxMessageSize})`,
    );
    return;
  }
  const parsed = parseClientFrame(frameText(message));
  if (!app.limiter.active) {
    dispatch(ctx, ws, app, parsed);
    return;
  }
  // Every frame takes the same asynchronous path while limits are on, so frames keep their order.
  const isClientEvent = parsed.ok && parsed.value.type === 'client-event';
  app.limiter.take(data.socketId, isClientEvent).then(
    guard(ctx.logger, 'rate limit', (hit: Awaited<ReturnType<SocketRateLimiter['take']>>) => {
      if (!data.open) return;
      if (hit === undefined) {
        dispatch(ctx, ws, app, parsed);
        return;
      }
      const what = hit === 'messages' ? 'messages' : 'client events';
      sendError(ws, app, ErrorCode.ClientEventRejected, `Too many ${what} per second from this connection`);
      if (hit === 'messages' && app.limiter.terminateOnLimit) {
        closeWith(ws, app, ErrorCode.Unauthorized, 'Connection closed for sending too many messages');
      }
    }),
    (error: unknown) => ctx.logger.error('rate limiter failed', { error, appId: app.config.id }),
  );
}

function dispatch(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  parsed: Result<ClientFrame, FrameError>,
): void {
  if (!parsed.ok) {
    sendError(ws, app, ErrorCode.GenericError, parsed.error.message);
    return;
  }
  const frame = parsed.value;
  const events = ctx.events;
  if (events.has('messageReceived')) {
    events.emit(
      'messageReceived',
      {
        appId: app.config.id,
        socketId: ws.getUserData().socketId,
        event: frame.type === 'client-event' ? frame.event : `pusher:${frame.type}`,
        channel: 'channel' in frame ? frame.channel : undefined,
      },
      ctx.reportListenerError,
    );
  }
  switch (frame.type) {
    case 'ping':
      send(ws, app, encodePong());
      break;
    case 'pong':
      break;
    case 'subscribe':
      subscribe(ctx, ws, app, frame);
      break;
    case 'unsubscribe':
      leave(ctx, ws, app, frame.channel, 'unsubscribe');
      break;
    case 'signin':
      signin(ctx, ws, app, frame);
      break;
    case 'client-event':
      clientEvent(ctx, ws, app, frame);
      break;
  }
}

/** A frame's text, decoded from a view of the transport's bytes (never a copy). */
function frameText(message: ArrayBuffer | Uint8Array): string {
  const bytes =
    message instanceof ArrayBuffer
      ? Buffer.from(message)
      : Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  return bytes.toString('utf8');
}
