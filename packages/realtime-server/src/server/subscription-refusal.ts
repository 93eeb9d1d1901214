import { encodeSubscriptionError, type SubscriptionErrorData } from '@herald/protocol-core';
import { send } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';

/** Answers a subscribe with `pusher:subscription_error`; the socket stays open. */
export function refuseSubscription(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  error: SubscriptionErrorData,
): void {
  ctx.logger.debug('subscription refused', {
    scope: 'socket.channel',
    appId: app.config.id,
    socketId: ws.getUserData().socketId,
    channel,
    reason: error.error,
  });
  send(ws, app, encodeSubscriptionError(channel, error));
}
