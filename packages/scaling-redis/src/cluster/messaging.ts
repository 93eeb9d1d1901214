import {
  type ClusterChannelChange,
  type ClusterDelivery,
  type ClusterMessage,
  encodeMemberRemoved,
} from '@herald/protocol-core';
import { decodeWireMessage, encodeWireMessage } from '../internal/wire.js';
import { messageOf, type NodeContext } from './context.js';
import type { Route } from './message-route.js';

/** How this node talks to the others: publishing, handing what arrives to the server, queued announcements. */
export interface Messaging {
  /** Publishes to the nodes concerned; a failure is counted and marks the share for rewriting, never thrown. */
  publish(message: ClusterMessage): void;
  /** Handles a raw message from Redis (any channel this node listens on). */
  receive(raw: string): void;
  /** Tells this node's listener of a channel change it is the one to report. */
  tell(change: ClusterChannelChange): void;
  /** Tells this node's listener that a user came online or went offline, then every other node. */
  announceUser(appId: string, userId: string, online: boolean): void;
  /** Queues a presence change for the other nodes (sent by `flushAnnouncements`). */
  announce(appId: string, channel: string, userId: string, frame: string): void;
  /** A member_removed found by cleanup: delivered to this node's sockets now (`local`), queued for every other node. */
  announceRemoved(appId: string, channel: string, userId: string, local: boolean): void;
  /**
   * Publishes the queued presence changes; a failure leaves the unsent ones queued for the next heartbeat. With
   * `waitForSubscribers`, first waits (boundedly) until the other nodes have resubscribed after an outage.
   */
  flushAnnouncements(waitForSubscribers: boolean): Promise<void>;
}

export function createMessaging(context: NodeContext, route: Route): Messaging {
  const { nodeId, link, logger, metrics } = context;
  // member_added/member_removed found by a resync or a reap and not yet published: Redis already holds the change,
  // so a later sync finds nothing to announce and these are kept until a publish succeeds. One per user and
  // channel, the latest winning, so the map stays as small as the presence state it describes.
  const announcements = new Map<string, ClusterDelivery>();

  function publish(message: ClusterMessage): void {
    context.write('publish', async () => {
      await link.publish(route(message), encodeWireMessage(nodeId, message));
      metrics.messageSent(message.type);
    });
  }

  /** Hands something to the server's listener; a listener that throws is counted and logged, never rethrown. */
  function toListener(what: string, fields: Record<string, unknown>, hand: () => void): void {
    try {
      hand();
    } catch (error) {
      metrics.error('listener');
      logger.error(`listener failed on ${what}`, { nodeId, ...fields, error: messageOf(error) });
    }
  }

  function receive(raw: string): void {
    const decoded = decodeWireMessage(raw);
    if (!decoded) {
      metrics.error('decode');
      logger.warn('ignored a broadcast not in Herald format', { nodeId, channel: context.channelName });
      return;
    }
    const { listener } = context;
    if (decoded.nodeId === nodeId || !listener) return;
    const { message } = decoded;
    metrics.messageReceived(message.type);
    toListener('a cluster message', { type: message.type }, () => {
      if (message.type === 'deliver') listener.deliver(message.delivery);
      else if (message.type === 'terminate') listener.terminate(message.appId, message.userId);
      else if (message.type === 'count') listener.countChanged?.(message.appId, message.channel);
      else if (message.type === 'user') listener.userChanged?.(message.appId, message.userId, message.online);
      else if (message.type === 'debug_watch') listener.debugWatched?.(message.appId);
      else if (message.type === 'debug') listener.debugRecord?.(message.appId, message.record);
      else listener.restart();
    });
  }

  function tell(change: ClusterChannelChange): void {
    toListener('a channel change', { type: change.type }, () => context.listener?.channelChanged?.(change));
  }

  function announceUser(appId: string, userId: string, online: boolean): void {
    toListener('a user change', {}, () => context.listener?.userChanged?.(appId, userId, online));
    publish({ type: 'user', appId, userId, online });
  }

  function announce(appId: string, channel: string, userId: string, frame: string): void {
    const key = JSON.stringify([appId, channel, userId]);
    announcements.delete(key); // Re-inserted last, so the map keeps the order of the changes.
    announcements.set(key, { appId, channel, frame });
  }

  function announceRemoved(appId: string, channel: string, userId: string, local: boolean): void {
    const delivery = { appId, channel, frame: encodeMemberRemoved(channel, userId) };
    tell({ type: 'member_removed', appId, channel, userId });
    if (local) toListener('member_removed', { appId, channel }, () => context.listener?.deliver(delivery));
    announce(appId, channel, userId, delivery.frame);
  }

  /**
   * After an outage every node reconnects on its own backoff: announcements published before the others have
   * resubscribed would be lost. Waits (at most `deadAfterMs`) until as many nodes listen as were live before (or
   * are live now), this one included.
   */
  async function awaitSubscribers(): Promise<void> {
    const deadline = Date.now() + context.deadAfterMs;
    while (Date.now() < deadline) {
      const [nodes, listening] = await Promise.all([
        context.liveNodes(),
        link.subscribers(context.channelName),
      ]);
      if (listening >= Math.max(nodes.length, context.knownLive)) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, context.heartbeatMs)));
    }
    logger.warn('announcing presence changes before every node resubscribed', { nodeId });
  }

  async function flushAnnouncements(waitForSubscribers: boolean): Promise<void> {
    if (!announcements.size) return;
    if (waitForSubscribers) await awaitSubscribers();
    await Promise.all(
      [...announcements].map(async ([key, delivery]) => {
        const message = { type: 'deliver', delivery } as const;
        // On the control channel, which every node listens on and `awaitSubscribers` counts: a channel's topic may
        // sit on a Redis Cluster master whose subscriptions come back later than the control channel's after an
        // outage, and an announcement published there meanwhile would be lost. Nodes without the channel's
        // subscribers drop it; on one Redis it keeps its order with this node's other messages (one connection).
        await link.publish(context.channelName, encodeWireMessage(nodeId, message));
        metrics.messageSent('deliver');
        if (announcements.get(key) === delivery) announcements.delete(key);
      }),
    );
  }

  return { publish, receive, tell, announceUser, announce, announceRemoved, flushAnnouncements };
}
