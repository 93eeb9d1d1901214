import { stopAuthDeadline } from './authorization.js';
import { forgetUser } from './sign-in.js';
import { channelList } from './socket-channels.js';
import type { ServerContext, Socket } from './state.js';
import { leave } from './unsubscribe.js';

/** A socket closed (either side): leaves its channels, signs its user out, and gives back its admission. */
export function disconnect(ctx: ServerContext, ws: Socket, code: number): void {
  const data = ws.getUserData();
  data.open = false;
  if (data.address !== undefined) ctx.addressLimits.closed(data.address, Date.now());
  const app = data.app;
  if (!app?.sockets.delete(ws)) return;
  stopAuthDeadline(app, ws);
  ctx.socketsById.delete(data.socketId);
  for (const channel of channelList(data.channels)) leave(ctx, ws, app, channel, 'close');
  if (data.userId !== undefined) forgetUser(ctx, ws, app, data.userId);
  app.metrics.connections.dec();
  app.metrics.disconnections.inc();
  if (data.admitted) ctx.cluster.releaseConnection(app.config.id);
  ctx.logger.debug('connection closed', {
    scope: 'socket.connection',
    appId: app.config.id,
    socketId: data.socketId,
    code,
  });
  if (ctx.debug.active) {
    ctx.debug.emit(app.config.id, { kind: 'connection_closed', socketId: data.socketId, code });
  }
  if (ctx.events.has('connectionClosed')) {
    ctx.events.emit(
      'connectionClosed',
      { appId: app.config.id, socketId: data.socketId, code },
      ctx.reportListenerError,
    );
  }
}
