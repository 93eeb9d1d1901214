/** The events the server raises for the host application to observe. */
export interface ApplicationEvents {
  connectionEstablished: { appId: string; socketId: string; origin: string | undefined };
  connectionClosed: { appId: string; socketId: string; code: number };
  channelCreated: { appId: string; channel: string };
  channelRemoved: { appId: string; channel: string };
  messageReceived: { appId: string; socketId: string; event: string; channel: string | undefined };
  messageSent: { appId: string; channel: string; event: string; recipients: number };
  httpApiEvent: { appId: string | undefined; method: string; path: string; status: number };
  // The events Pusher sends webhooks for, each raised once for the whole cluster (on the node that decided it):
  /** The first subscriber of a channel anywhere. */
  channelOccupied: { appId: string; channel: string };
  /** The last subscriber of a channel anywhere left (or its node died). */
  channelVacated: { appId: string; channel: string };
  /** A user's first socket in a presence channel anywhere. */
  memberAdded: { appId: string; channel: string; userId: string };
  /** A user's last socket in a presence channel anywhere left (or its node died). */
  memberRemoved: { appId: string; channel: string; userId: string };
  /** A client event relayed; `data` as the client sent it (JSON text), `userId` on presence channels. */
  clientEvent: {
    appId: string;
    channel: string;
    event: string;
    data: string;
    socketId: string;
    userId: string | undefined;
  };
  /** A subscription to a cache channel found nothing cached. */
  cacheMiss: { appId: string; channel: string };
  /**
   * A non-presence channel's count after a change made on this node (apps with subscription counts on), at most
   * once per channel per interval, by each node whose subscribers changed.
   */
  subscriptionCount: { appId: string; channel: string; count: number };
}

type Listener<T> = (payload: T) => void;

/**
 * A small typed event emitter. Emitting costs nothing when nobody listens, which keeps per-frame events off the
 * hot path until a listener is added.
 */
export class ApplicationEventEmitter {
  readonly #listeners: { [K in keyof ApplicationEvents]?: Array<Listener<ApplicationEvents[K]>> } = {};

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof ApplicationEvents>(event: K, listener: Listener<ApplicationEvents[K]>): () => void {
    const list = (this.#listeners[event] ?? []) as Array<Listener<ApplicationEvents[K]>>;
    list.push(listener);
    (this.#listeners as Record<K, Array<Listener<ApplicationEvents[K]>>>)[event] = list;
    return () => this.off(event, listener);
  }

  /** Removes a listener added with {@link ApplicationEventEmitter.on}. */
  off<K extends keyof ApplicationEvents>(event: K, listener: Listener<ApplicationEvents[K]>): void {
    const list = this.#listeners[event] as Array<Listener<ApplicationEvents[K]>> | undefined;
    if (!list) return;
    const index = list.indexOf(listener);
    if (index >= 0) list.splice(index, 1);
  }

  /** Tells whether anyone listens to an event, so callers can skip building its payload. */
  has(event: keyof ApplicationEvents): boolean {
    return (this.#listeners[event]?.length ?? 0) > 0;
  }

  /** Calls every listener of an event; a throwing listener does not stop the others or the server. */
  emit<K extends keyof ApplicationEvents>(
    event: K,
    payload: ApplicationEvents[K],
    onError?: (error: unknown) => void,
  ): void {
    const list = this.#listeners[event] as Array<Listener<ApplicationEvents[K]>> | undefined;
    if (!list || list.length === 0) return;
    for (const listener of [...list]) {
      try {
        listener(payload);
      } catch (error) {
        onError?.(error);
      }
    }
  }
}
