import type {
  CachedEvent,
  ChannelQuery,
  ChannelState,
  ChannelSummary,
  MetricsText,
  PublishedEvent,
  RealtimeBackend,
} from './backend.js';

/** A channel as the in-memory backend holds it. */
export interface MemoryChannel {
  readonly subscriptionCount: number;
  /** Presence channels: the ids of the users present. */
  readonly users?: readonly string[] | undefined;
  readonly cache?: CachedEvent | undefined;
}

/** An in-memory {@link RealtimeBackend} for tests: holds channels you set and records what it was asked to do. */
export interface MemoryBackend extends RealtimeBackend {
  /** Every published event, in order. */
  readonly published: Array<{ readonly appId: string; readonly event: PublishedEvent }>;
  /** Every terminated user, in order. */
  readonly terminated: Array<{ readonly appId: string; readonly userId: string }>;
  /** Every channel list query, in order. */
  readonly channelQueries: Array<{ readonly appId: string; readonly query: ChannelQuery }>;
  /** Sets (or, with `undefined`, removes) a channel of an app. */
  setChannel(appId: string, name: string, channel: MemoryChannel | undefined): void;
}

/** What `metrics()` of the in-memory backend answers unless told otherwise. */
export const MEMORY_BACKEND_METRICS: MetricsText = {
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  body: '# HELP herald_connected Current connections\n# TYPE herald_connected gauge\nherald_connected 0\n',
};

/**
 * Creates an in-memory backend for testing the HTTP API without a server.
 *
 * @example
 * const backend = createMemoryBackend();
 * backend.setChannel('1', 'presence-room', { subscriptionCount: 2, users: ['1', '2'] });
 */
export function createMemoryBackend(metrics: MetricsText = MEMORY_BACKEND_METRICS): MemoryBackend {
  const apps = new Map<string, Map<string, MemoryChannel>>();
  const channelsOf = (appId: string): Map<string, MemoryChannel> => {
    let channels = apps.get(appId);
    if (channels === undefined) {
      channels = new Map();
      apps.set(appId, channels);
    }
    return channels;
  };
  const summaryOf = (name: string, channel: MemoryChannel): ChannelSummary => ({
    name,
    subscriptionCount: channel.subscriptionCount,
    userCount: channel.users === undefined ? undefined : new Set(channel.users).size,
  });

  const backend: MemoryBackend = {
    published: [],
    terminated: [],
    channelQueries: [],
    setChannel(appId, name, channel) {
      if (channel === undefined) channelsOf(appId).delete(name);
      else channelsOf(appId).set(name, channel);
    },
    async publish(appId, event) {
      backend.published.push({ appId, event });
    },
    async channels(appId, query) {
      backend.channelQueries.push({ appId, query });
      const prefix = query.prefix ?? '';
      return [...channelsOf(appId)]
        .filter(([name, channel]) => name.startsWith(prefix) && channel.subscriptionCount > 0)
        .map(([name, channel]) => summaryOf(name, channel));
    },
    async channel(appId, name): Promise<ChannelState> {
      const channel = channelsOf(appId).get(name);
      if (channel === undefined) return { occupied: false, subscriptionCount: 0 };
      const { subscriptionCount, userCount } = summaryOf(name, channel);
      return { occupied: subscriptionCount > 0, subscriptionCount, userCount, cache: channel.cache };
    },
    async presenceUsers(appId, name) {
      return [...new Set(channelsOf(appId).get(name)?.users ?? [])];
    },
    async terminateUser(appId, userId) {
      backend.terminated.push({ appId, userId });
    },
    async metrics() {
      return metrics;
    },
  };
  return backend;
}
