import type { BellStore } from './bell-store.js';
import {
  type BellAction,
  type BellIconName,
  type BellNotification,
  normalizeAction,
} from './notification.js';

/** Builds a notification in the page and adds it to the store: `make().title('…').message('…').send()`. */
export interface NotificationBuilder {
  title(title: string): NotificationBuilder;
  message(message: string): NotificationBuilder;
  icon(icon: BellIconName): NotificationBuilder;
  iconClass(className: string): NotificationBuilder;
  actionUrl(url: string): NotificationBuilder;
  actions(actions: ReadonlyArray<Partial<BellAction> & { name: string; label: string }>): NotificationBuilder;
  data(data: Record<string, unknown>): NotificationBuilder;
  type(type: 'success' | 'danger' | 'warning' | 'info'): NotificationBuilder;
  success(): NotificationBuilder;
  warning(): NotificationBuilder;
  danger(): NotificationBuilder;
  info(): NotificationBuilder;
  /** The notification as it will be added. */
  build(): BellNotification;
  /** Adds it to the store (it stays in this page: read and delete do not reach the server) and returns it. */
  send(): BellNotification;
}

const TONE_ICONS = { success: 'check', danger: 'alert', warning: 'alert', info: 'info' } as const;

let sequence = 0;

/**
 * Starts a notification made in the page, added to the given store on `send()`.
 *
 * @example
 * makeNotification(() => Alpine.store('notifications')).title('Saved').message('Your draft is safe').success().send();
 */
export function makeNotification(store: () => BellStore): NotificationBuilder {
  let title = '';
  let message = '';
  let icon: BellIconName | undefined;
  let iconClass: string | undefined;
  let actionUrl: string | undefined;
  let actions: BellAction[] = [];
  let extra: Record<string, unknown> = {};
  let tone: BellNotification['tone'] = 'neutral';

  const builder: NotificationBuilder = {
    title(value) {
      title = value;
      return builder;
    },
    message(value) {
      message = value;
      return builder;
    },
    icon(value) {
      icon = value;
      return builder;
    },
    iconClass(value) {
      iconClass = value;
      return builder;
    },
    actionUrl(value) {
      actionUrl = value;
      return builder;
    },
    actions: (value) => {
      actions = value.flatMap((raw) => {
        const action = normalizeAction({ ...raw, color: raw.tone ?? (raw as { color?: string }).color });
        return action ? [action] : [];
      });
      return builder;
    },
    data(value) {
      extra = { ...extra, ...value };
      return builder;
    },
    type(value) {
      tone = value;
      return builder;
    },
    success: () => builder.type('success'),
    warning: () => builder.type('warning'),
    danger: () => builder.type('danger'),
    info: () => builder.type('info'),
    build() {
      if (title === '') throw new Error('a notification needs a title: call .title() before .send()');
      sequence += 1;
      const now = new Date().toISOString();
      return {
        id: `local-${Date.now().toString(36)}-${sequence}`,
        type: 'local',
        title,
        message,
        icon: icon ?? (tone === 'neutral' ? 'bell' : TONE_ICONS[tone]),
        iconClass,
        actionUrl,
        actions,
        tone,
        readAt: null,
        createdAt: now,
        local: true,
        isNew: false,
        data: { ...extra, title, message },
        // Made in the page: no inbox states on the server.
        seenAt: now,
        archivedAt: null,
        snoozedUntil: null,
        expiresAt: null,
        collapseKey: null,
        collapseCount: 1,
        collapseActors: [],
      };
    },
    send() {
      const notification = builder.build();
      store().addNotification(notification);
      return notification;
    },
  };
  return builder;
}
