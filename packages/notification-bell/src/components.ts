import type { BellStore } from './bell-store.js';
import { type BellTabMethods, bellTabMethods } from './bell-tabs.js';
import { createNotificationClient } from './client.js';
import { openCrossTab } from './cross-tab.js';
import { ICONS } from './icons.js';
import { hostOptionsOf } from './internal/host-options.js';
import type { BellAction, BellNotification } from './notification.js';
import {
  BELL_FILTERS,
  type BellFilter,
  type BellOptions,
  type BellOptionsInput,
  DEFAULT_LABELS,
  resolveBellOptions,
} from './options.js';
import { formatRelativeTime, pageLocale } from './relative-time.js';
import { type SnoozePreset, snoozeUntil } from './snooze-presets.js';
import { type BellTheme, detectTheme, watchTheme } from './theme.js';
import { startUpdates } from './updates.js';

/** The Alpine magics the components use. */
interface Magics {
  $el: HTMLElement;
  $refs: Record<string, HTMLElement | undefined>;
  $store: { notifications: BellStore };
  $nextTick(callback?: () => void): Promise<void>;
}

/** What every part of the bell reads: the resolved options. */
interface BellContext {
  options: BellOptions;
}

let context: BellContext = { options: resolveBellOptions() };
let instances = 0;

/**
 * The bell's options: `data-options` JSON on its element, with what code gave (`x-data` argument, or
 * `mountNotificationBells`'s options) on top; the page's language when they name none.
 */
function readOptions(el: HTMLElement, given: BellOptionsInput | undefined): [BellOptions, string?] {
  const host = el.closest<HTMLElement>('[data-notification-bell]');
  const locale = pageLocale(el.ownerDocument);
  const fromCode = { ...(host ? hostOptionsOf(host) : undefined), ...given };
  const raw = host?.dataset.options;
  if (!raw) return [resolveBellOptions(fromCode, locale)];
  try {
    return [resolveBellOptions({ ...(JSON.parse(raw) as BellOptionsInput), ...fromCode }, locale)];
  } catch {
    return [
      resolveBellOptions(fromCode, locale),
      'The bell’s data-options are not valid JSON: it runs with its defaults.',
    ];
  }
}

/** The options of the bell that started last (its controls, such as push, read them). */
export function currentBellOptions(): BellOptions {
  return context.options;
}

/** The bell component's state and methods. */
export interface NotificationBellComponent extends BellTabMethods {
  mode: BellOptions['mode'];
  position: BellOptions['position'];
  theme: BellTheme;
  panelId: string;
  titleId: string;
  labels: BellOptions['labels'];
  tabs: boolean;
  tabIds: Record<BellFilter, string>;
  readonly tabNames: readonly BellFilter[];
  init(): void;
  destroy(): void;
  readonly badgeText: string;
  readonly buttonLabel: string;
  toggle(): void;
  open(): void;
  close(returnFocus: boolean): void;
  focusFirst(): void;
  loadMore(): Promise<void>;
  onEscape(event: KeyboardEvent): void;
  onOutside(): void;
  moveFocus(event: KeyboardEvent, step: 1 | -1 | 'first' | 'last'): void;
  readonly trapsFocus: boolean;
  onPageKeydown(event: KeyboardEvent): void;
  onPageFocusin(event: FocusEvent): void;
}

/** How long an item must be on screen before it counts as seen. */
const SEEN_AFTER_MS = 1000;

const TABBABLE =
  'button, [href], input, select, textarea, summary, [contenteditable], [tabindex]:not([tabindex="-1"])';

/** The elements inside `root` that Tab reaches, in document order: enabled, rendered and visible. */
function tabbableElements(root: ParentNode): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(TABBABLE)).filter(
    (el) =>
      el.tabIndex >= 0 &&
      !(el as HTMLButtonElement).disabled &&
      !el.closest('[inert]') &&
      el.getClientRects().length > 0 &&
      getComputedStyle(el).visibility !== 'hidden',
  );
}

/** The list component. */
export interface NotificationListComponent {
  readonly items: BellNotification[];
}

/** One item's component. */
export interface NotificationItemComponent {
  item: BellNotification;
  readonly labels: BellOptions['labels'];
  readonly classes: Record<string, boolean>;
  readonly timeAgo: string;
  readonly iconSvg: string;
  /** "Ada and 9 others" for an item standing for several; empty for one alone. */
  readonly collapsedText: string;
  /** When a snoozed item comes back, in words; empty when not snoozed. */
  readonly snoozedText: string;
  snoozeOpen: boolean;
  init(): void;
  destroy(): void;
  activate(): Promise<void>;
  markAsRead(): Promise<void>;
  remove(): Promise<void>;
  archive(): Promise<void>;
  unarchive(): Promise<void>;
  snooze(preset: SnoozePreset): Promise<void>;
  runAction(action: BellAction): void;
}

/** The bell itself: button, badge, dropdown or panel, theme, keyboard, and the updates behind them. */
export function notificationBell(config?: BellOptionsInput): NotificationBellComponent {
  let stops: Array<() => void> = [];
  const component: NotificationBellComponent & ThisType<NotificationBellComponent & Magics> = {
    mode: 'dropdown' as BellOptions['mode'],
    position: 'right' as BellOptions['position'],
    theme: 'light' as BellTheme,
    panelId: '',
    titleId: '',
    labels: DEFAULT_LABELS,
    tabs: true,
    tabIds: { all: '', unread: '', snoozed: '', archived: '' },
    tabNames: BELL_FILTERS,

    ...bellTabMethods,

    init() {
      const [options, problem] = readOptions(this.$el, config);
      instances += 1;
      context = { options };
      this.mode = options.mode;
      this.position = options.position;
      this.labels = options.labels;
      this.tabs = options.tabs;
      this.panelId = `herald-bell-panel-${instances}`;
      this.titleId = `herald-bell-title-${instances}`;
      this.tabIds = Object.fromEntries(
        BELL_FILTERS.map((tab) => [tab, `herald-bell-tab-${tab}-${instances}`]),
      ) as Record<BellFilter, string>;
      if (options.theme) {
        this.theme = options.theme;
      } else {
        this.theme = detectTheme(this.$el);
        stops.push(
          watchTheme(this.$el, (theme) => {
            this.theme = theme;
          }),
        );
      }
      const store = this.$store.notifications;
      const crossTab = openCrossTab(store, options);
      stops.push(() => crossTab.close());
      store.configure({
        client: createNotificationClient({
          apiUrl: options.apiUrl,
          authToken: options.authToken,
          credentials: options.credentials,
        }),
        perPage: options.perPage,
        filter: options.filter,
        labels: options.labels,
        counts: options.tabs,
        share: crossTab.share,
      });
      if (options.unreadCount !== null && !store.loaded) store.unreadCount = options.unreadCount;
      if (problem) store.error = problem;
      const ticker = setInterval(() => {
        store.now = Date.now();
      }, 30_000);
      stops.push(() => clearInterval(ticker));
      stops.push(startUpdates(store, options));
      void store.loadNotifications(1, false);
    },

    destroy() {
      for (const stop of stops) stop();
      stops = [];
    },

    get badgeText(): string {
      const count = this.$store.notifications.unreadCount;
      return count > 99 ? '99+' : String(count);
    },

    get buttonLabel(): string {
      const count = this.$store.notifications.unreadCount;
      return count > 0 ? `${this.labels.bell}, ${this.labels.unread(count)}` : this.labels.bell;
    },

    toggle() {
      if (this.$store.notifications.isOpen) this.close(true);
      else this.open();
    },

    open() {
      this.$store.notifications.setOpen(true);
      void this.$nextTick(() => this.focusFirst());
    },

    close(returnFocus: boolean) {
      this.$store.notifications.setOpen(false);
      if (returnFocus) this.$refs.button?.focus();
    },

    focusFirst() {
      const first = this.$refs.panel?.querySelector<HTMLElement>('[data-bell-focus]');
      (first ?? this.$refs.panel)?.focus();
    },

    /** Loads the next page and moves focus to its first item, since the button may go away. */
    async loadMore() {
      const before = this.$refs.panel?.querySelectorAll('[data-bell-focus]').length ?? 0;
      const hadFocus = this.$refs.panel?.contains(document.activeElement) ?? false;
      await this.$store.notifications.loadMore();
      await this.$nextTick();
      const next = this.$refs.panel?.querySelectorAll<HTMLElement>('[data-bell-focus]')[before];
      if (hadFocus) next?.focus();
    },

    onEscape(event: KeyboardEvent) {
      if (!this.$store.notifications.isOpen) return;
      event.preventDefault();
      this.close(true);
    },

    onOutside() {
      if (this.$store.notifications.isOpen && this.mode === 'dropdown') this.close(false);
    },

    /** The side panel is modal: while it is open, focus stays inside it. The dropdown is not. */
    get trapsFocus(): boolean {
      return this.mode === 'panel' && this.$store.notifications.isOpen;
    },

    /**
     * Keys anywhere in the page while the panel is open: Tab and Shift+Tab cycle through the panel's controls
     * (wrapping at either end, and coming back in when focus was lost, say to a deleted item), Escape closes.
     */
    onPageKeydown(event: KeyboardEvent) {
      if (!this.trapsFocus || event.defaultPrevented) return;
      const panel = this.$refs.panel;
      if (!panel) return;
      if (event.key === 'Escape') {
        this.onEscape(event);
        return;
      }
      if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
      const stops = tabbableElements(panel);
      const active = document.activeElement as HTMLElement | null;
      const inside = active !== null && active !== panel && panel.contains(active);
      const first = stops[0];
      const last = stops[stops.length - 1];
      let next: HTMLElement | undefined;
      if (!first || !last) next = panel;
      else if (!inside) next = event.shiftKey ? last : first;
      else if (event.shiftKey && active === first) next = last;
      else if (!event.shiftKey && active === last) next = first;
      if (!next) return; // within the panel: the browser's own order
      event.preventDefault();
      next.focus();
    },

    /** Focus landing outside the open panel (a click, a script, the browser's own controls) is brought back. */
    onPageFocusin(event: FocusEvent) {
      const panel = this.$refs.panel;
      if (!this.trapsFocus || !panel || !(event.target instanceof Node) || panel.contains(event.target))
        return;
      (tabbableElements(panel)[0] ?? panel).focus();
    },

    /** Arrow keys move between items (wrapping), Home and End jump to the first and last. */
    moveFocus(event: KeyboardEvent, step: 1 | -1 | 'first' | 'last') {
      const items = Array.from(this.$refs.panel?.querySelectorAll<HTMLElement>('[data-bell-focus]') ?? []);
      if (items.length === 0) return;
      event.preventDefault();
      const at = items.indexOf(document.activeElement as HTMLElement);
      const next =
        step === 'first'
          ? 0
          : step === 'last'
            ? items.length - 1
            : at === -1
              ? step === 1
                ? 0
                : items.length - 1
              : (at + step + items.length) % items.length;
      items[next]?.focus();
    },
  };
  return component;
}

/** The list: its items, newest first. */
export function notificationList(): NotificationListComponent {
  const component: NotificationListComponent & ThisType<NotificationListComponent & Magics> = {
    /** The items, less any that expired since they arrived (the server lists none that had). */
    get items(): BellNotification[] {
      const store = this.$store.notifications;
      return store.items.filter((item) => item.expiresAt === null || Date.parse(item.expiresAt) > store.now);
    },
  };
  return component;
}

/** One item: its relative time and icon, mark read on click, delete, and its action buttons. */
export function notificationItem(item: BellNotification): NotificationItemComponent {
  let stopSeen: (() => void) | undefined;
  const component: NotificationItemComponent & ThisType<NotificationItemComponent & Magics> = {
    item,
    snoozeOpen: false,

    /** Marks the item seen once it has been on screen for a second, the panel open (hidden ones never intersect). */
    init() {
      if (this.item.seenAt !== null || this.item.local || typeof IntersectionObserver === 'undefined') return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const observer = new IntersectionObserver(
        ([entry]) => {
          clearTimeout(timer);
          if (!entry?.isIntersecting) return;
          timer = setTimeout(() => {
            this.$store.notifications.queueSeen(this.item.id);
            stopSeen?.();
          }, SEEN_AFTER_MS);
        },
        { threshold: 0.5 },
      );
      observer.observe(this.$el);
      stopSeen = () => {
        clearTimeout(timer);
        observer.disconnect();
      };
    },

    destroy() {
      stopSeen?.();
    },

    get collapsedText(): string {
      const { collapseCount, collapseActors } = this.item;
      return collapseCount > 1 ? context.options.labels.collapsed(collapseCount, collapseActors[0]) : '';
    },

    get snoozedText(): string {
      const until = this.item.snoozedUntil;
      if (until === null || Date.parse(until) <= this.$store.notifications.now) return '';
      const when = formatRelativeTime(until, new Date(this.$store.notifications.now), context.options.locale);
      return context.options.labels.snoozedUntil(when);
    },

    get labels() {
      return context.options.labels;
    },

    get classes(): Record<string, boolean> {
      return {
        'herald-bell__item--unread': this.item.readAt === null,
        'herald-bell__item--new': this.item.isNew,
        'herald-bell__item--link': this.item.actionUrl !== undefined,
        [`herald-bell__item--${this.item.tone}`]: true,
      };
    },

    get timeAgo(): string {
      return formatRelativeTime(
        this.item.createdAt,
        new Date(this.$store.notifications.now),
        context.options.locale,
      );
    },

    get iconSvg(): string {
      return ICONS[this.item.icon];
    },

    /** Click on the item: marks it read (unless `markReadOnClick` is off) and follows its `action_url`. */
    async activate() {
      const store = this.$store.notifications;
      if (context.options.markReadOnClick && this.item.readAt === null) await store.markAsRead(this.item.id);
      if (this.item.actionUrl) globalThis.location.assign(this.item.actionUrl);
    },

    markAsRead() {
      return this.$store.notifications.markAsRead(this.item.id);
    },

    remove() {
      return this.$store.notifications.deleteNotification(this.item.id);
    },

    archive() {
      return this.$store.notifications.archive(this.item.id);
    },

    unarchive() {
      return this.$store.notifications.unarchive(this.item.id);
    },

    async snooze(preset: SnoozePreset) {
      this.snoozeOpen = false;
      await this.$store.notifications.snooze(this.item.id, snoozeUntil(preset));
    },

    /** An action opens its `url` (in a new tab when asked) or dispatches its `event` from the item, bubbling. */
    runAction(action: BellAction) {
      if (action.isDisabled) return;
      if (action.url) {
        if (action.openInNewTab) globalThis.open(action.url, '_blank', 'noopener');
        else globalThis.location.assign(action.url);
      } else if (action.event) {
        this.$el.dispatchEvent(
          new CustomEvent(action.event, {
            bubbles: true,
            detail: { notificationId: this.item.id, actionName: action.name, ...action.eventData },
          }),
        );
      }
      if (action.shouldClose) {
        // Focus was on this action, inside what is closing: it goes back to the bell, as on every close.
        const bell = this.$el.closest('.herald-bell')?.querySelector<HTMLElement>('.herald-bell__button');
        this.$store.notifications.setOpen(false);
        bell?.focus();
      }
    },
  };
  return component;
}
