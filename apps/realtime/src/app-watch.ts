import type { AppChanges, AppStore, Logger, RealtimeServer } from '@herald/realtime-server';
import type { ServedApp } from './app-source.js';
import { scoped } from './logger.js';
import type { ServedApps } from './served-apps.js';
import type { RunningWebhooks } from './webhooks.js';

/**
 * Applies every change the app store reports on this node: the server first (which may refuse a change), then the
 * REST API's and the webhooks' views. Returns the function that stops watching.
 */
export function watchAppStore(
  store: AppStore<ServedApp>,
  parts: {
    readonly server: RealtimeServer;
    readonly apps: ServedApps;
    readonly webhooks: RunningWebhooks | undefined;
    readonly logger: Logger;
    /** Called after a change was applied on this node. */
    readonly onAppsChanged?: ((apps: readonly ServedApp[], changes: AppChanges) => void) | undefined;
  },
): () => void {
  const { server, apps, webhooks, onAppsChanged } = parts;
  const log = scoped(parts.logger, 'app_store');
  return store.watch((next) => {
    try {
      const changes = server.setApps(apps.forServer(next));
      apps.replace(next);
      webhooks?.reload(next);
      onAppsChanged?.(next, changes);
    } catch (error) {
      log.error('app change not applied', { error });
    }
  });
}
