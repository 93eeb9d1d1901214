import type { BellStore } from './bell-store.js';
import { BELL_FILTERS, type BellFilter, type BellLabels } from './options.js';

/** What the tab methods read from the bell component they are part of. */
interface TabHost {
  labels: BellLabels;
  tabIds: Record<BellFilter, string>;
  $store: { notifications: BellStore };
  $nextTick(callback?: () => void): Promise<void>;
}

/** The bell component's tab methods: names, counts, "archive read", and moving between tabs. */
export interface BellTabMethods {
  tabLabel(tab: BellFilter): string;
  /** The tab's count as shown beside its name; empty before the counts arrive. */
  tabCount(tab: BellFilter): string;
  /** Offer "archive read": on the inbox tab, when it holds read ones. */
  canArchiveRead(): boolean;
  showTab(filter: BellFilter): void;
  moveTab(event: KeyboardEvent, step: 1 | -1): void;
}

const LABELS = {
  all: 'tabAll',
  unread: 'tabUnread',
  snoozed: 'tabSnoozed',
  archived: 'tabArchived',
} as const;

/** The tab methods, spread into the bell component (they use its `this`). */
export const bellTabMethods: BellTabMethods & ThisType<BellTabMethods & TabHost> = {
  tabLabel(tab) {
    return this.labels[LABELS[tab]];
  },

  tabCount(tab) {
    const counts = this.$store.notifications.counts;
    if (!counts) return '';
    const count = {
      all: counts.inbox,
      unread: counts.unread,
      snoozed: counts.snoozed,
      archived: counts.archived,
    }[tab];
    return count > 99 ? '99+' : String(count);
  },

  canArchiveRead() {
    const store = this.$store.notifications;
    if (store.filter !== 'all') return false;
    return store.counts
      ? store.counts.inbox > store.counts.unread
      : store.items.some((item) => item.readAt !== null);
  },

  /** Shows a tab's list; the tab list's focus follows the chosen tab. */
  showTab(filter) {
    void this.$store.notifications.setFilter(filter);
  },

  /** Left and Right move between the tabs (wrapping) and show the one reached, as the ARIA tabs pattern has it. */
  moveTab(event, step) {
    event.preventDefault();
    const at = BELL_FILTERS.indexOf(this.$store.notifications.filter);
    const next = BELL_FILTERS[(at + step + BELL_FILTERS.length) % BELL_FILTERS.length] as BellFilter;
    this.showTab(next);
    void this.$nextTick(() => document.getElementById(this.tabIds[next])?.focus());
  },
};
