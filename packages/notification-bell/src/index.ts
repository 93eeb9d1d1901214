export { makeNotification, type NotificationBuilder } from './builder.js';
export {
  apiBase,
  CSRF_HEADER,
  createNotificationClient,
  type NotificationClient,
  type NotificationClientOptions,
  type NotificationPage,
  readCsrfToken,
  type WriteResult,
} from './client.js';
export { notificationBell, notificationItem, notificationList } from './components.js';
export { BellError, type BellErrorCode, isBellError } from './errors.js';
export { ICONS } from './icons.js';
export type { LiveConnection, LiveHandlers } from './live/connection.js';
export { shouldPoll } from './live/connection.js';
export { connectHub, type HubTarget } from './live/hub.js';
export { connectWsproto, type WsprotoTarget } from './live/wsproto.js';
export {
  BELL_ICONS,
  type BellAction,
  type BellIconName,
  type BellNotification,
  type BellTone,
  normalizeNotification,
} from './notification.js';
export {
  type BellBroadcasting,
  type BellLabels,
  type BellOptions,
  type BellOptionsInput,
  DEFAULT_LABELS,
  liveChannelName,
  resolveBellOptions,
  updateMode,
} from './options.js';
export {
  type AlpineLike,
  make,
  mountNotificationBells,
  notificationBellPlugin,
  notificationStore,
} from './plugin.js';
export { formatRelativeTime, pageLocale } from './relative-time.js';
export {
  BELL_EVENTS,
  type BellStore,
  type BellStoreDeps,
  createBellStore,
  LIVE_EVENTS,
  type LiveState,
} from './store.js';
export {
  type BellTemplates,
  DEFAULT_TEMPLATES,
  renderBellMarkup,
  resolveTemplates,
  TEMPLATE_NAMES,
} from './templates.js';
export { type BellTheme, detectTheme, watchTheme } from './theme.js';
export { startUpdates } from './updates.js';
