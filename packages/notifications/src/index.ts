export {
  createNotificationApi,
  type NotificationApiErrorCode,
  type NotificationApiOptions,
  PREFERENCES_ROUTE,
} from './api.js';
export { type AwayDelivery, type AwayDeliveryOptions, createAwayDelivery } from './away-delivery.js';
export type { AwayQueue } from './away-plan.js';
export type { NewAwayDelivery } from './away-queries.js';
export {
  type BellBroadcasting,
  type BellOptions,
  escapeHtml,
  type RenderBellInput,
  type RenderedBell,
  renderNotificationBell,
} from './bell.js';
export {
  type BroadcastChannelOptions,
  createBroadcastChannel,
  NOTIFICATION_CREATED_EVENT,
} from './broadcast-channel.js';
export {
  type BroadcasterOptions,
  createBroadcaster,
  type InboxChange,
  type NotificationBroadcaster,
  type NotificationChange,
  notificationChannelName,
} from './broadcaster.js';
export type { CollapseCount, Delivery, DeliveryOutcome, NotificationChannel } from './channel.js';
export {
  createNotificationClient,
  type NotificationClient,
  type NotificationClientOptions,
  type SendOptions,
} from './client.js';
export { createDatabaseChannel, type DatabaseChannelOptions } from './database-channel.js';
export { collapseSummaryOf, type DeliveryItem, deliveryItemOf } from './delivery-item.js';
export { isNotificationError, NotificationError, type NotificationErrorCode } from './errors.js';
export type { InboxChangeOutcome, InboxQueries } from './inbox-queries.js';
export { MAX_SEEN_IDS, MAX_SNOOZE_MS } from './inbox-routes.js';
export { type NotificationLogger, silentNotificationLogger } from './logger.js';
export type { Notifiable, Notification } from './notification.js';
export { notificationType } from './notification.js';
export {
  NOTIFICATION_ICONS,
  type NotificationAction,
  type NotificationData,
  type NotificationDataError,
  type NotificationIcon,
  notificationDataSchema,
  parseNotificationData,
} from './notification-data.js';
export {
  isNotificationId,
  type MarkReadOutcome,
  type NotificationFilter,
  type NotificationPage,
} from './notification-queries.js';
export type { NotificationUser } from './notification-user.js';
export {
  ANONYMOUS_NOTIFIABLE_TYPE,
  createNotifier,
  type Notifier,
  type NotifierOptions,
  type NotifyingNotifiable,
  type PendingRoute,
  type SendFailure,
  type SendReport,
} from './notifier.js';
export {
  ANY_NOTIFICATION_TYPE,
  type ChannelPreferences,
  type NotificationPreferences,
  preferenceOwnerKey,
  refusedChannelsOf,
} from './preferences.js';
export {
  createRealtimePresence,
  type RealtimePresenceOptions,
  type RecipientPresence,
} from './presence.js';
export {
  createPushSubscriptionApi,
  PUSH_KEY_ROUTE,
  PUSH_SUBSCRIPTIONS_ROUTE,
  type PushApiErrorCode,
  type PushSubscriptionApiOptions,
} from './push-api.js';
export { isPushEndpointPattern, KNOWN_PUSH_SERVICES, pushEndpointsAllowed } from './push-endpoints.js';
export {
  createPushSubscriptions,
  type NewPushSubscription,
  type PushSubscriptionRecord,
  type PushSubscriptions,
  type PushSubscriptionsOptions,
  type VapidKeys,
} from './push-subscriptions.js';
export {
  INBOX_TABS,
  type InboxCounts,
  type InboxTab,
  type NewNotificationRecord,
  type NotifiableKey,
  type NotificationRecord,
} from './record.js';
export {
  createSendApi,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  type NotificationTypeSettings,
  notificationTypeSettingsSchema,
  SEND_ROUTE,
  type SendApiErrorCode,
  type SendApiOptions,
  type SendRecipient,
  type SendRequest,
  type SendResult,
  type SendResultFailure,
} from './send-api.js';
export {
  createNotificationStore,
  type NotificationStore,
  type NotificationStoreOptions,
} from './store.js';
export {
  createUnsubscribeApi,
  createUnsubscribeLinks,
  UNSUBSCRIBE_ROUTE,
  type UnsubscribeLinks,
  type UnsubscribeOptions,
} from './unsubscribe.js';
export {
  CSRF_HEADER,
  createUserAuth,
  type UserAuth,
  type UserAuthOptions,
  type UserAuthOutcome,
} from './user-auth.js';
export {
  createUserTokenVerifier,
  DEFAULT_USER_TOKEN_AUDIENCE,
  type SignUserTokenOptions,
  signUserToken,
  type UserTokenError,
  type UserTokenKey,
  type UserTokenVerifier,
  type UserTokenVerifierOptions,
} from './user-token.js';
