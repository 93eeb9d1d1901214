export { type RetryOptions, retryDelay } from './backoff.js';
export {
  parseWebhookList,
  parseWebhooksEnv,
  type WebhookBatchingConfig,
  type WebhookConfig,
  type WebhookConfigInput,
  type WebhookSettingsConfig,
  type WebhooksFromEnv,
  webhookBatchingSchema,
  webhookListSchema,
  webhookSchema,
  webhookSettingsSchema,
} from './config.js';
export { type CloseOptions, createWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';
export { isWebhooksError, WebhooksError, type WebhooksErrorCode } from './errors.js';
export {
  type CacheMissEvent,
  type ChannelOccupiedEvent,
  type ChannelVacatedEvent,
  type ClientEventEvent,
  type ClientEventInput,
  type MemberAddedEvent,
  type MemberRemovedEvent,
  type SubscriptionCountEvent,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
  webhookEvent,
} from './events.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { createMemoryWebhookQueue, type MemoryWebhookQueueOptions } from './memory-queue.js';
export type { DropReason, RequestOutcome } from './metrics.js';
export type {
  BatchingOptions,
  WebhookApp,
  WebhookDispatcherOptions,
  WebhookEventCheck,
  WebhookFetch,
} from './options.js';
export { batchingFromConfig, dispatcherSettingsFromConfig } from './options-from-config.js';
export type { ClaimedWebhookJob, EnqueueOutcome, WebhookJob, WebhookQueue } from './queue.js';
export type { DeliveryState, WebhookAttemptReport, WebhookDelivery } from './recent-deliveries.js';
export { subjectOf, type WebhookSubject } from './subject.js';
