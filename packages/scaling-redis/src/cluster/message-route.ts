import type { ClusterMessage } from '@herald/protocol-core';

/**
 * How cluster messages reach nodes. `interest`: a channel's traffic (`deliver`, `count`) goes to a topic per
 * channel and `terminate` to a topic per user, each subscribed only by the nodes holding its sockets; `broadcast`:
 * everything goes to every node over the control channel (the behaviour before interest routing).
 */
export type ClusterRouting = 'interest' | 'broadcast';

/** The channel a message is published on. */
export type Route = (message: ClusterMessage) => string;

/** The two topic names; the `{…}` hash tag spreads them over the masters of a Redis Cluster. */
export function topicNames(channelName: string) {
  return {
    channel: (appId: string, channel: string) => `${channelName}#ch{${appId}:${channel}}`,
    user: (appId: string, userId: string) => `${channelName}#user{${appId}:${userId}}`,
  };
}

/** Decides where each message goes: its channel's or user's topic by interest, else the control channel. */
export function createRoute(routing: ClusterRouting, channelName: string): Route {
  if (routing === 'broadcast') return () => channelName;
  const names = topicNames(channelName);
  return (message) => {
    if (message.type === 'deliver') return names.channel(message.delivery.appId, message.delivery.channel);
    if (message.type === 'count') return names.channel(message.appId, message.channel);
    if (message.type === 'terminate') return names.user(message.appId, message.userId);
    return channelName;
  };
}
