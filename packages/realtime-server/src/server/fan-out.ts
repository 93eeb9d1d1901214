// Where a frame is fanned out, every broadcast of the server: to this node's subscribers of a channel through the
// transport's topic, and to the other nodes through the cluster adapter (free when this node serves alone: the
// single-node adapter has nobody to tell).

import { describeChannel, encodeChannelEvent } from '@herald/protocol-core';
import { cacheEvent } from './cache-channels.js';
import { appendToHistory } from './history-append.js';
import { passHeld } from './live-hold.js';
import { topicOf } from './send.js';
import { hasChannel } from './socket-channels.js';
import type { AppState, ServerContext, Socket } from './state.js';

/** What {@link RealtimeServer.publish} sends. */
export interface PublishRequest {
  readonly channels: readonly string[];
  readonly event: string;
  /** Forwarded byte for byte as the event's `data` string. */
  readonly data: string;
  /** This socket does not receive the event (Pusher's `socket_id` on trigger). */
  readonly excludeSocketId?: string;
}

/** Publishes an event to channels of an app (REST trigger): here, to the cluster, and into cache channels. */
export function publish(ctx: ServerContext, appId: string, request: PublishRequest): void {
  const app = ctx.apps.byId.get(appId);
  if (!app) return;
  if (ctx.debug.active) {
    const size = Buffer.byteLength(request.data);
    for (const channel of request.channels) {
      ctx.debug.emit(appId, { kind: 'api_message', channel, event: request.event, size });
    }
  }
  for (const channel of request.channels) {
    if (app.config.history === undefined) {
      const frame = encodeChannelEvent({ event: request.event, channel, data: request.data });
      deliverPublished(ctx, app, channel, frame, request);
    } else {
      appendToHistory(ctx, app, { event: request.event, channel, data: request.data }, (frame) =>
        deliverPublished(ctx, app, channel, frame, request),
      );
    }
  }
}

function deliverPublished(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  frame: string,
  request: PublishRequest,
): void {
  if (describeChannel(channel).cache) cacheEvent(ctx, app, channel, frame, request);
  const recipients = fanOut(ctx, app, channel, frame, request.excludeSocketId);
  const events = ctx.events;
  if (events.has('messageSent')) {
    events.emit(
      'messageSent',
      { appId: app.config.id, channel, event: request.event, recipients },
      ctx.reportListenerError,
    );
  }
}

/**
 * Sends an encoded frame to a channel's subscribers on every node (REST publish, member_removed), skipping one socket
 * wherever it is; returns the recipients on this node.
 */
export function fanOut(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  frame: string,
  excludeSocketId?: string,
): number {
  const recipients = deliverLocal(ctx, app, channel, frame, excludeSocketId);
  ctx.cluster.broadcast({
    type: 'deliver',
    delivery: { appId: app.config.id, channel, frame, excludeSocketId },
  });
  return recipients;
}

/** Sends an encoded frame to this node's subscribers of a channel, skipping one socket if it is here. */
export function deliverLocal(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  frame: string,
  excludeSocketId?: string,
): number {
  const topic = topicOf(app, channel);
  const excluded = excludeSocketId ? ctx.socketsById.get(excludeSocketId) : undefined;
  const excludedData = excluded?.getUserData();
  if (app.holds !== undefined) passHeld(app, channel, frame, excluded);
  if (excluded && excludedData?.app === app && hasChannel(excludedData.channels, channel)) {
    // Publishing through the excluded socket is uWS's native way of skipping exactly that socket.
    excluded.publish(topic, frame);
    return countBroadcast(ctx, app, topic, frame, 1);
  }
  ctx.transport.publish(topic, frame);
  return countBroadcast(ctx, app, topic, frame, 0);
}

/**
 * Sends a frame from a socket (whose id the caller holds) to every other subscriber of the channel, here and on the
 * other nodes (client events, member_added); returns the recipients on this node.
 */
export function publishFrom(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  frame: string,
  socketId: string,
): number {
  const topic = topicOf(app, channel);
  if (app.holds !== undefined) passHeld(app, channel, frame, ws);
  ws.publish(topic, frame);
  const recipients = countBroadcast(ctx, app, topic, frame, 1);
  ctx.cluster.broadcast({
    type: 'deliver',
    delivery: { appId: app.config.id, channel, frame, excludeSocketId: socketId },
  });
  return recipients;
}

/** Counts a topic publish in the app's metrics; returns the recipients. */
function countBroadcast(
  ctx: ServerContext,
  app: AppState,
  topic: string,
  frame: string,
  excluded: number,
): number {
  const recipients = Math.max(0, ctx.transport.numSubscribers(topic) - excluded);
  if (recipients > 0) {
    app.metrics.sent.inc(recipients);
    app.metrics.bytesOut.inc(recipients * Buffer.byteLength(frame));
  }
  return recipients;
}
