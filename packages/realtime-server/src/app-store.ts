import type { RealtimeApp } from './app.js';

/**
 * Where a server's applications come from: read them all once, then hear about every change. Lookups on the hot
 * path never reach the store: the server keeps what it was given in memory and applies each change with
 * {@link RealtimeServer.setApps}.
 *
 * A store hands over the whole list on every change (not a diff): the server works out what was added,
 * changed, disabled or removed, so a store that missed notifications (a database outage) only has to re-read.
 *
 * @typeParam App - what the store holds: `RealtimeApp` for the server itself, or the app's own record shape
 * (e.g. the config file's snake_case keys) that the app maps onto the server's and the REST API's views.
 */
export interface AppStore<App = RealtimeApp> {
  /** Reads every application. @throws when the store cannot be read (e.g. the database is unreachable). */
  load(): Promise<readonly App[]>;
  /**
   * Calls `listener` with the full list after every change, for as long as the subscription lasts. Returns the
   * function that ends it.
   */
  watch(listener: (apps: readonly App[]) => void): () => void;
  /** Stops watching and releases connections. */
  close(): Promise<void>;
}

/**
 * An {@link AppStore} over a fixed list: the config file's `applications[]`, the embedded default. It never
 * changes (a config file changes through a restart, `realtime restart_server`).
 *
 * @example
 * const store = createStaticAppStore([{ id: '1', key: 'key', secret: 'secret' }]);
 * const server = createRealtimeServer({ apps: await store.load() });
 */
export function createStaticAppStore<App = RealtimeApp>(apps: readonly App[]): AppStore<App> {
  const frozen = [...apps];
  return {
    load: async () => frozen,
    watch: () => () => {},
    close: async () => {},
  };
}
