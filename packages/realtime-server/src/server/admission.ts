// Where a socket is let in: its app, origin and protocol are checked at the upgrade; once open it is refused (the
// reason sent as a close frame), held to the app's connection limit by the cluster adapter (this node's count when
// it serves alone, answered at once), and established.

import { ErrorCode, encodeConnectionEstablished, isOriginAllowed } from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { queryParam } from '../query-param.js';
import { UpgradeRefusal, type UpgradeRequest } from '../transport/types.js';
import { startAuthDeadline } from './authorization.js';
import { clusterFailed, guard } from './guard.js';
import { closeWith, send } from './send.js';
import type { AppState, ServerContext, Socket, SocketData } from './state.js';

const OVER_QUOTA = 'Application is over its connection quota';

/**
 * The state a socket starts with, or an HTTP refusal when its address is over a per-address limit (no socket
 * opens). Other refused upgrades still complete and are closed with the reason once open, as Pusher clients expect.
 */
export function socketData(
  ctx: Pick<ServerContext, 'addressLimits' | 'apps' | 'logger'>,
  request: UpgradeRequest,
  socketId: string,
): SocketData | UpgradeRefusal {
  const address = ctx.addressLimits.active ? ctx.addressLimits.admit(request, Date.now()) : undefined;
  if (address instanceof UpgradeRefusal) {
    ctx.logger.debug('upgrade refused', {
      scope: 'socket.connection',
      address: request.remoteAddress,
      reason: address.message,
    });
    return address;
  }
  const { key, origin, query } = request;
  const app = ctx.apps.byKey.get(key);
  return {
    app,
    rejection: refusal(app, origin, query),
    socketId,
    origin: origin || undefined,
    lastSeen: Date.now(),
    pingedAt: 0,
    channels: undefined,
    presence: undefined,
    userId: undefined,
    watching: undefined,
    open: true,
    established: false,
    admitted: false,
    address,
  };
}

/** A socket opened: closes it when refused, over quota or the server is going away; establishes it otherwise. */
export function admit(ctx: ServerContext, ws: Socket): void {
  const data = ws.getUserData();
  if (data.address !== undefined) ctx.addressLimits.opened(data.address);
  const app = data.app;
  if (ctx.closing || ctx.draining) {
    closeWith(
      ws,
      app,
      ErrorCode.Reconnect,
      ctx.draining ? 'Server is shutting down' : 'Server is restarting',
    );
    return;
  }
  if (!app || data.rejection) {
    const rejection = data.rejection ?? {
      code: ErrorCode.AppNotFound,
      message: 'No application has this key',
    };
    ctx.logger.debug('connection refused', {
      scope: 'socket.connection',
      appId: app?.config.id,
      code: rejection.code,
      origin: data.origin,
    });
    closeWith(ws, undefined, rejection.code, rejection.message);
    return;
  }
  const cluster = ctx.cluster;
  const answer = cluster.admitConnection(app.config.id, app.config.maxConnections);
  if (!isPending(answer)) {
    admitted(ctx, ws, data, app, answer);
    return;
  }
  answer.then(
    guard(ctx.logger, 'admission', (admit: boolean) => {
      if (data.open) admitted(ctx, ws, data, app, admit);
      else if (admit) cluster.releaseConnection(app.config.id);
    }),
    (error: unknown) => {
      // Without Redis the node still serves: it counts the connection locally only.
      clusterFailed(ctx.logger, 'admission')(error);
      if (!data.open) return;
      if (app.sockets.size >= app.config.maxConnections) {
        closeWith(ws, undefined, ErrorCode.OverConnectionQuota, OVER_QUOTA);
        return;
      }
      establish(ctx, ws, app);
    },
  );
}

/** The adapter's answer for an open socket: over quota (closed with 4004), or counted and established. */
function admitted(ctx: ServerContext, ws: Socket, data: SocketData, app: AppState, admit: boolean): void {
  if (!admit) {
    closeWith(ws, undefined, ErrorCode.OverConnectionQuota, OVER_QUOTA);
    return;
  }
  data.admitted = true;
  establish(ctx, ws, app);
}

/** Why an upgrade is refused, or undefined when the socket may be admitted. */
function refusal(app: AppState | undefined, origin: string, query: string): SocketData['rejection'] {
  if (!app) return { code: ErrorCode.AppNotFound, message: 'No application has this key' };
  if (!app.config.enabled) return { code: ErrorCode.AppDisabled, message: 'Application is disabled' };
  if (!isOriginAllowed(origin || undefined, app.config.allowedOrigins)) {
    return { code: ErrorCode.Unauthorized, message: `Origin ${origin || '(none)'} is not allowed` };
  }
  const protocol = queryParam(query, 'protocol');
  if (protocol !== null && protocol !== '7') {
    return {
      code: ErrorCode.UnsupportedProtocol,
      message: `Protocol version ${protocol} is not supported; use 7`,
    };
  }
  return undefined;
}

function establish(ctx: ServerContext, ws: Socket, app: AppState): void {
  if (!stillServed(ctx, ws, app)) return;
  const data = ws.getUserData();
  data.established = true;

  app.sockets.add(ws);
  ctx.socketsById.set(data.socketId, ws);
  app.metrics.connections.inc();
  app.metrics.newConnections.inc();
  send(ws, app, encodeConnectionEstablished(data.socketId, app.config.activityTimeout));
  if (app.config.authorizeWithinMs !== undefined) startAuthDeadline(ctx, ws, app);
  ctx.logger.debug('connection established', {
    scope: 'socket.connection',
    appId: app.config.id,
    socketId: data.socketId,
  });
  if (ctx.debug.active) {
    ctx.debug.emit(app.config.id, {
      kind: 'connection_opened',
      socketId: data.socketId,
      origin: data.origin,
    });
  }
  if (ctx.events.has('connectionEstablished')) {
    ctx.events.emit(
      'connectionEstablished',
      { appId: app.config.id, socketId: data.socketId, origin: data.origin },
      ctx.reportListenerError,
    );
  }
}

/**
 * Whether an admitted socket may still be established: its app may have been disabled or removed while a cluster
 * adapter was asked. If not, the socket is closed and its admission given back.
 */
function stillServed(ctx: ServerContext, ws: Socket, app: AppState): boolean {
  const removed = ctx.apps.byId.get(app.config.id) !== app;
  if (!removed && app.config.enabled) return true;
  const data = ws.getUserData();
  if (data.admitted) {
    data.admitted = false;
    ctx.cluster.releaseConnection(app.config.id);
  }
  if (removed) closeWith(ws, undefined, ErrorCode.AppNotFound, 'No application has this key');
  else closeWith(ws, undefined, ErrorCode.AppDisabled, 'Application is disabled');
  return false;
}
