/** The built-in icons an item can name in `data.icon`. */
export const BELL_ICONS = ['bell', 'post', 'user', 'message', 'alert', 'check', 'info'] as const;

/** One of the built-in icon names. */
export type BellIconName = (typeof BELL_ICONS)[number];

/** The colour family of an item or an action button. */
export type BellTone = 'success' | 'danger' | 'warning' | 'info' | 'neutral';

/** A button under a notification: it opens `url`, or dispatches `event` from the item. */
export interface BellAction {
  readonly name: string;
  readonly label: string;
  readonly url: string | undefined;
  readonly event: string | undefined;
  readonly eventData: Record<string, unknown>;
  readonly icon: string | undefined;
  readonly tone: BellTone;
  readonly openInNewTab: boolean;
  readonly shouldClose: boolean;
  readonly isDisabled: boolean;
}

/** A notification as the bell shows it, whether it came from the JSON API, live push or the client builder. */
export interface BellNotification {
  readonly id: string;
  readonly type: string;
  readonly title: string;
  readonly message: string;
  readonly icon: BellIconName;
  readonly iconClass: string | undefined;
  readonly actionUrl: string | undefined;
  readonly actions: readonly BellAction[];
  readonly tone: BellTone;
  readAt: string | null;
  readonly createdAt: string;
  /** Made in the page by the client builder: never sent to the server. */
  readonly local: boolean;
  /** Arrived since the list was opened: highlighted for a few seconds. */
  isNew: boolean;
  /** The record's `data`, with any keys of the app's own. */
  readonly data: Record<string, unknown>;
  /** When it was first shown for a second; `null` while unseen. */
  seenAt: string | null;
  readonly archivedAt: string | null;
  readonly snoozedUntil: string | null;
  /** After this time the bell no longer shows it. */
  readonly expiresAt: string | null;
  /** Notifications with the same key fold into one while unread. */
  readonly collapseKey: string | null;
  /** How many notifications this one stands for (1 alone). */
  readonly collapseCount: number;
  /** Who caused them (`data.actor` of each), newest first. */
  readonly collapseActors: readonly string[];
}

type Loose = Record<string, unknown>;

const TONES: Record<string, BellTone> = {
  success: 'success',
  danger: 'danger',
  error: 'danger',
  warning: 'warning',
  info: 'info',
};

const TONE_ICONS: Record<BellTone, BellIconName> = {
  success: 'check',
  danger: 'alert',
  warning: 'alert',
  info: 'info',
  neutral: 'bell',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toneOf(value: unknown): BellTone {
  return (typeof value === 'string' && TONES[value]) || 'neutral';
}

/** Reads one action object, accepting `target: '_blank'` and `disabled` as the older spellings. */
export function normalizeAction(raw: Loose): BellAction | undefined {
  const name = text(raw.name) ?? text(raw.label);
  const label = text(raw.label) ?? name;
  if (name === undefined || label === undefined) return undefined;
  return {
    name,
    label,
    url: text(raw.url),
    event: text(raw.event),
    eventData: isRecord(raw.eventData) ? raw.eventData : {},
    icon: text(raw.icon),
    tone: toneOf(raw.color ?? raw.type),
    openInNewTab: raw.openInNewTab === true || raw.target === '_blank',
    shouldClose: raw.shouldClose === true,
    isDisabled: raw.isDisabled === true || raw.disabled === true,
  };
}

/**
 * Reads a stored record (`{id, type, data{title, message, …}, read_at, created_at}`) or a flat live payload
 * into the shape the bell shows; undefined when it has no id or no title.
 */
export function normalizeNotification(raw: unknown): BellNotification | undefined {
  if (!isRecord(raw)) return undefined;
  const data: Loose = isRecord(raw.data) ? raw.data : raw;
  const id = raw.id ?? data.id;
  const title = text(data.title) ?? text(raw.title);
  if ((typeof id !== 'string' && typeof id !== 'number') || title === undefined) return undefined;
  const tone = toneOf(data.type ?? data.level);
  const icon = BELL_ICONS.find((name) => name === data.icon) ?? TONE_ICONS[tone];
  const actions = Array.isArray(data.actions)
    ? data.actions.flatMap((action) => {
        const normalized = isRecord(action) ? normalizeAction(action) : undefined;
        return normalized ? [normalized] : [];
      })
    : [];
  const createdAt = text(raw.created_at) ?? text(raw.created) ?? new Date().toISOString();
  return {
    id: String(id),
    type: text(raw.type) ?? 'notification',
    title,
    message: text(data.message) ?? text(data.body) ?? text(raw.message) ?? '',
    icon,
    iconClass: text(data.icon_class),
    actionUrl: text(data.action_url) ?? text(raw.action_url),
    actions,
    tone,
    readAt: text(raw.read_at) ?? null,
    createdAt,
    local: false,
    isNew: false,
    data,
    seenAt: text(raw.seen_at) ?? null,
    archivedAt: text(raw.archived_at) ?? null,
    snoozedUntil: text(raw.snoozed_until) ?? null,
    expiresAt: text(raw.expires_at) ?? null,
    collapseKey: text(raw.collapse_key) ?? null,
    collapseCount:
      typeof raw.collapse_count === 'number' && raw.collapse_count > 1 ? Math.floor(raw.collapse_count) : 1,
    collapseActors: Array.isArray(raw.collapse_actors)
      ? raw.collapse_actors.filter((actor): actor is string => typeof actor === 'string')
      : typeof data.actor === 'string'
        ? [data.actor]
        : [],
  };
}
