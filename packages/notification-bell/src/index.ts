export { type AuthToken, CSRF_HEADER, type RequestAuth } from './auth.js';
export type { BellStore, BellStoreDeps, LiveState } from './bell-store.js';
export { makeNotification, type NotificationBuilder } from './builder.js';
export {
  apiBase,
  createNotificationClient,
  type InboxCounts,
  type NotificationClient,
  type NotificationClientOptions,
  type NotificationPage,
  readCsrfToken,
  type WriteResult,
} from './client.js';
export { notificationBell, notificationItem, notificationList } from './components.js';
export { BellError, type BellErrorCode, type BellOperation, isBellError } from './errors.js';
export { BELL_EVENTS, LIVE_EVENTS } from './events.js';
export { ICONS } from './icons.js';
export type { LiveConnection, LiveHandlers } from './live/connection.js';
export { shouldPoll } from './live/connection.js';
export {
  BELL_ICONS,
  type BellAction,
  type BellIconName,
  type BellNotification,
  type BellTone,
  normalizeNotification,
} from './notification.js';
export {
  BELL_FILTERS,
  type BellBroadcasting,
  type BellFilter,
  type BellOptions,
  type BellOptionsInput,
  type BellPush,
  DEFAULT_LABELS,
  liveChannelName,
  resolveBellOptions,
  updateMode,
} from './options.js';
export {
  type AlpineLike,
  type HostAlpine,
  make,
  mountNotificationBells,
  notificationBellPlugin,
  notificationStore,
} from './plugin.js';
export { type BellPushState, type NotificationPushComponent, notificationPush } from './push-control.js';
export type { BellPushDevice } from './push-devices.js';
export { type BellPushRoutes, pushRoutes } from './push-routes.js';
export { PUSH_CONTROL_TEMPLATE } from './push-template.js';
export { formatRelativeTime, pageLocale } from './relative-time.js';
export { SNOOZE_PRESETS, type SnoozePreset, snoozeUntil } from './snooze-presets.js';
export { createBellStore } from './store.js';
export {
  BELL_STRINGS,
  type BellLabels,
  type BellStrings,
  bellLabels,
  type PluralText,
  stringsFor,
} from './strings.js';
export {
  type BellTemplates,
  DEFAULT_TEMPLATES,
  renderBellMarkup,
  resolveTemplates,
  TEMPLATE_NAMES,
} from './templates.js';
export { type BellTheme, detectTheme, watchTheme } from './theme.js';
export { startUpdates } from './updates.js';
