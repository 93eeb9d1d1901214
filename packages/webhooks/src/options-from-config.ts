import type { WebhookBatchingConfig, WebhookSettingsConfig } from './config.js';
import type { BatchingOptions, WebhookDispatcherOptions } from './options.js';

// Apart from config.ts so that the config schema does not depend on the dispatcher's option types (which name
// the config's webhook type): the conversion is the one place that knows both.

/** Turns validated batching settings into the dispatcher's (and a `WebhookApp`'s) `batching` option. */
export function batchingFromConfig(batching: WebhookBatchingConfig): BatchingOptions {
  return { enabled: batching.enabled, windowMs: batching.window_ms, maxEvents: batching.max_events };
}

/** Turns validated server-wide settings into the matching `createWebhookDispatcher` options. */
export function dispatcherSettingsFromConfig(
  settings: WebhookSettingsConfig,
): Pick<
  WebhookDispatcherOptions,
  'batching' | 'retry' | 'requestTimeoutMs' | 'maxQueuedPerApp' | 'concurrency'
> {
  return {
    batching: batchingFromConfig(settings.batching),
    retry: {
      maxElapsedMs: settings.retry.max_elapsed_ms,
      baseMs: settings.retry.base_ms,
      maxMs: settings.retry.max_ms,
    },
    requestTimeoutMs: settings.request_timeout_ms,
    maxQueuedPerApp: settings.max_queued_per_app,
    concurrency: settings.concurrency,
  };
}
