import type { ClusterRouting } from './message-route.js';

/** What a node received from Redis and how much subscribing it did; counters since the adapter was made. */
export interface ClusterStats {
  readonly routing: ClusterRouting;
  /** Messages that arrived on any channel this node listens on (its own echoes on topics included). */
  readonly messagesReceived: number;
  /** Their size in bytes (UTF-8). */
  readonly bytesReceived: number;
  /** Topics (channels and users) subscribed right now, lingering ones included. */
  readonly topics: number;
  /** Topics subscribed, and dropped, so far. */
  readonly subscribes: number;
  readonly unsubscribes: number;
  /** SUBSCRIBE/SUNSUBSCRIBE commands sent for them (a drop sends one command for many topics where it can). */
  readonly subscribeCommands: number;
  readonly unsubscribeCommands: number;
}

/** The running counts behind {@link ClusterStats}, kept as plain numbers: the receive path adds to them per message. */
export interface Traffic {
  messagesReceived: number;
  bytesReceived: number;
  subscribes: number;
  unsubscribes: number;
  subscribeCommands: number;
  unsubscribeCommands: number;
}

export function createTraffic(): Traffic {
  return {
    messagesReceived: 0,
    bytesReceived: 0,
    subscribes: 0,
    unsubscribes: 0,
    subscribeCommands: 0,
    unsubscribeCommands: 0,
  };
}

/** Counts a message as it arrives from Redis, then hands it on: the listener of every channel the node holds. */
export function countingListener(traffic: Traffic, receive: (raw: string) => void): (raw: string) => void {
  return (raw) => {
    traffic.messagesReceived += 1;
    traffic.bytesReceived += Buffer.byteLength(raw);
    receive(raw);
  };
}
