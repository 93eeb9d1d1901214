import type { WebhookEvent } from './events.js';
import type { Target } from './internal/targets.js';
import type { BatchingOptions, WebhookApp } from './options.js';

/** Events for one target of one app, gathered to go out as one request. */
export interface Batch {
  readonly appId: string;
  readonly target: Target;
  readonly events: readonly WebhookEvent[];
  /** When the first event arrived (ms since the epoch): the body's `time_ms`. */
  readonly openedAt: number;
}

/** Gathers the events of each lane (app and target) into batches and hands each over once it is full or due. */
export interface Batcher {
  /** Adds an event for one target of an app; with batching off for the app, it leaves at once on its own. */
  add(appId: string, app: WebhookApp, target: Target, event: WebhookEvent): void;
  /** Hands over every batch being gathered, due or not (on close). */
  flushAll(): void;
}

interface Settings {
  readonly enabled: boolean;
  readonly windowMs: number;
  readonly maxEvents: number;
}

interface OpenBatch {
  readonly appId: string;
  readonly target: Target;
  readonly events: WebhookEvent[];
  readonly openedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/** Creates a {@link Batcher} that hands finished batches to `onBatch`; `defaults` apply where an app sets nothing. */
export function createBatcher(options: {
  readonly defaults?: BatchingOptions | undefined;
  readonly onBatch: (batch: Batch) => void;
}): Batcher {
  const { onBatch } = options;
  const open = new Map<string, OpenBatch>();
  // An app object stands for one version of the app (see WebhookDispatcherOptions.apps): resolve its batching once.
  const resolved = new WeakMap<WebhookApp, Settings>();
  const settingsOf = (app: WebhookApp): Settings => {
    let settings = resolved.get(app);
    if (!settings) {
      const own = app.batching ?? {};
      const shared = options.defaults ?? {};
      settings = {
        enabled: own.enabled ?? shared.enabled ?? true,
        windowMs: own.windowMs ?? shared.windowMs ?? 50,
        maxEvents: own.maxEvents ?? shared.maxEvents ?? 100,
      };
      resolved.set(app, settings);
    }
    return settings;
  };

  const flush = (batch: OpenBatch) => {
    if (batch.timer) clearTimeout(batch.timer);
    open.delete(batch.target.lane);
    onBatch({ appId: batch.appId, target: batch.target, events: batch.events, openedAt: batch.openedAt });
  };

  return {
    add(appId, app, target, event) {
      const settings = settingsOf(app);
      if (!settings.enabled || settings.windowMs === 0 || settings.maxEvents <= 1) {
        onBatch({ appId, target, events: [event], openedAt: Date.now() });
        return;
      }
      let batch = open.get(target.lane);
      if (!batch) {
        const opened: OpenBatch = { appId, target, events: [], openedAt: Date.now(), timer: undefined };
        opened.timer = setTimeout(() => flush(opened), settings.windowMs);
        open.set(target.lane, opened);
        batch = opened;
      }
      batch.events.push(event);
      if (batch.events.length >= settings.maxEvents) flush(batch);
    },
    flushAll() {
      for (const batch of [...open.values()]) flush(batch);
    },
  };
}
