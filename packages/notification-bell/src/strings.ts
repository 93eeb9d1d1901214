import type { BellOperation } from './errors.js';

/**
 * A text that depends on a count: one string for every count, or one per plural category of the language
 * (`Intl.PluralRules`), `other` required. `{count}` is replaced by the count, formatted for the language.
 */
export type PluralText =
  | string
  | ({ readonly [rule in Intl.LDMLPluralRule]?: string } & { readonly other: string });

/**
 * The words the bell shows, as plain data (so a page can give them in `data-options` JSON). `{count}` and
 * `{title}` are filled in where the text takes them.
 */
export interface BellStrings {
  readonly title: string;
  /** The bell button's accessible name. */
  readonly bell: string;
  /** The unread count beside the title and in the button's name: `{count}`. */
  readonly unread: PluralText;
  /** Said after an unread item's title to screen readers. */
  readonly unreadMark: string;
  readonly markAllRead: string;
  readonly markRead: string;
  readonly delete: string;
  readonly loadMore: string;
  readonly loading: string;
  readonly empty: string;
  readonly emptyHint: string;
  readonly close: string;
  readonly dismiss: string;
  /** Announced in the polite live region when a notification arrives: `{title}`. */
  readonly received: string;
  readonly offline: string;
  /** The name of the tab list. */
  readonly filter: string;
  /** The tab that lists every notification. */
  readonly tabAll: string;
  /** The tab that lists the unread ones. */
  readonly tabUnread: string;
  /** The tab that lists the snoozed ones. */
  readonly tabSnoozed: string;
  /** The tab that lists the archived ones. */
  readonly tabArchived: string;
  readonly archive: string;
  readonly unarchive: string;
  /** Archives every read notification in the inbox. */
  readonly archiveAllRead: string;
  /** The button that opens the snooze choices. */
  readonly snooze: string;
  readonly snoozeHour: string;
  readonly snoozeTomorrow: string;
  readonly snoozeNextWeek: string;
  /** Under a snoozed item: `{time}`, when it comes back. */
  readonly snoozedUntil: string;
  /** A collapsed item's count with the newest actor: `{actor}` and `{count}` others. */
  readonly collapsedActors: PluralText;
  /** A collapsed item's count without actors: `{count}` notifications. */
  readonly collapsedCount: PluralText;
  /** Where the footer's controls (e.g. browser notifications) are named for screen readers. */
  readonly footer: string;
  /** A failed request, with `{detail}`: the server's words, or `unreachable`. */
  readonly failedLoad: string;
  readonly failedMarkRead: string;
  readonly failedMarkAllRead: string;
  readonly failedDelete: string;
  readonly failedArchive: string;
  readonly failedSnooze: string;
  /** Why a request failed when it got no answer at all. */
  readonly unreachable: string;
  // Web Push: the control at the foot of the panel.
  /** The button that asks for permission and turns browser notifications on. */
  readonly pushEnable: string;
  /** Shown once browser notifications are on. */
  readonly pushOn: string;
  /** Turning them on failed, with `{detail}`. */
  readonly pushFailed: string;
  /** The button that turns them off in this browser (and forgets it on the server). */
  readonly pushDisable: string;
  /** Turning them off failed, with `{detail}`. */
  readonly pushDisableFailed: string;
  /** The button that shows the devices with browser notifications on, and the list's name. */
  readonly pushDevices: string;
  /** Reading the device list failed, with `{detail}`. */
  readonly pushDevicesFailed: string;
  /** Beside the device the page is open on. */
  readonly pushThisDevice: string;
  /** The visible text of a device's remove button. */
  readonly pushRemove: string;
  /** A device's remove button's accessible name: `{device}`. */
  readonly pushRemoveDevice: string;
  /** Removing a device failed, with `{detail}`. */
  readonly pushRemoveFailed: string;
  /** The device list when no device has them on. */
  readonly pushNoDevices: string;
  /** A device whose browser is not recognised. */
  readonly pushUnknownDevice: string;
}

/** The languages shipped with the bell. Add another by giving `strings` (every key) with your `locale`. */
export const BELL_STRINGS = {
  en: {
    title: 'Notifications',
    bell: 'Notifications',
    unread: '{count} unread',
    unreadMark: 'unread',
    markAllRead: 'Mark all as read',
    markRead: 'Mark as read',
    delete: 'Delete',
    loadMore: 'Load more',
    loading: 'Loading notifications…',
    empty: 'You are all caught up',
    emptyHint: 'New notifications will show up here.',
    close: 'Close',
    dismiss: 'Dismiss',
    received: 'New notification: {title}',
    offline: 'Live updates paused, checking periodically',
    filter: 'Show',
    tabAll: 'All',
    tabUnread: 'Unread',
    tabArchived: 'Archived',
    tabSnoozed: 'Snoozed',
    archive: 'Archive',
    unarchive: 'Move to inbox',
    archiveAllRead: 'Archive read',
    snooze: 'Snooze',
    snoozeHour: '1 hour',
    snoozeTomorrow: 'Tomorrow',
    snoozeNextWeek: 'Next week',
    snoozedUntil: 'Back {time}',
    collapsedActors: { one: '{actor} and {count} other', other: '{actor} and {count} others' },
    collapsedCount: '{count} notifications',
    footer: 'Notification settings',
    failedArchive: 'Could not archive: {detail}.',
    failedSnooze: 'Could not snooze it: {detail}.',
    failedLoad: 'Could not load notifications: {detail}.',
    failedMarkRead: 'Could not mark it as read: {detail}.',
    failedMarkAllRead: 'Could not mark all as read: {detail}.',
    failedDelete: 'Could not delete it: {detail}.',
    unreachable: 'the server could not be reached',
    pushEnable: 'Turn on browser notifications',
    pushOn: 'Browser notifications are on',
    pushFailed: 'Could not turn on browser notifications: {detail}.',
    pushDisable: 'Turn off browser notifications',
    pushDisableFailed: 'Could not turn off browser notifications: {detail}.',
    pushDevices: 'Devices with browser notifications',
    pushDevicesFailed: 'Could not list the devices: {detail}.',
    pushThisDevice: 'this device',
    pushRemove: 'Remove',
    pushRemoveDevice: 'Remove {device}',
    pushRemoveFailed: 'Could not remove the device: {detail}.',
    pushNoDevices: 'No device has browser notifications on.',
    pushUnknownDevice: 'Unknown browser',
  },
  de: {
    title: 'Benachrichtigungen',
    bell: 'Benachrichtigungen',
    unread: '{count} ungelesen',
    unreadMark: 'ungelesen',
    markAllRead: 'Alle als gelesen markieren',
    markRead: 'Als gelesen markieren',
    delete: 'Löschen',
    loadMore: 'Mehr laden',
    loading: 'Benachrichtigungen werden geladen…',
    empty: 'Alles erledigt',
    emptyHint: 'Neue Benachrichtigungen erscheinen hier.',
    close: 'Schließen',
    dismiss: 'Ausblenden',
    received: 'Neue Benachrichtigung: {title}',
    offline: 'Live-Updates pausiert, es wird regelmäßig nachgesehen',
    filter: 'Anzeigen',
    tabAll: 'Alle',
    tabUnread: 'Ungelesen',
    tabArchived: 'Archiv',
    tabSnoozed: 'Später',
    archive: 'Archivieren',
    unarchive: 'In den Posteingang',
    archiveAllRead: 'Gelesene archivieren',
    snooze: 'Später erinnern',
    snoozeHour: '1 Stunde',
    snoozeTomorrow: 'Morgen',
    snoozeNextWeek: 'Nächste Woche',
    snoozedUntil: 'Zurück {time}',
    collapsedActors: { one: '{actor} und {count} weitere Person', other: '{actor} und {count} weitere' },
    collapsedCount: '{count} Benachrichtigungen',
    footer: 'Benachrichtigungseinstellungen',
    failedArchive: 'Archivieren fehlgeschlagen: {detail}.',
    failedSnooze: 'Konnte nicht verschoben werden: {detail}.',
    failedLoad: 'Benachrichtigungen konnten nicht geladen werden: {detail}.',
    failedMarkRead: 'Konnte nicht als gelesen markiert werden: {detail}.',
    failedMarkAllRead: 'Konnten nicht alle als gelesen markiert werden: {detail}.',
    failedDelete: 'Konnte nicht gelöscht werden: {detail}.',
    unreachable: 'der Server ist nicht erreichbar',
    pushEnable: 'Browser-Benachrichtigungen einschalten',
    pushOn: 'Browser-Benachrichtigungen sind an',
    pushFailed: 'Browser-Benachrichtigungen konnten nicht eingeschaltet werden: {detail}.',
    pushDisable: 'Browser-Benachrichtigungen ausschalten',
    pushDisableFailed: 'Browser-Benachrichtigungen konnten nicht ausgeschaltet werden: {detail}.',
    pushDevices: 'Geräte mit Browser-Benachrichtigungen',
    pushDevicesFailed: 'Die Geräte konnten nicht geladen werden: {detail}.',
    pushThisDevice: 'dieses Gerät',
    pushRemove: 'Entfernen',
    pushRemoveDevice: '{device} entfernen',
    pushRemoveFailed: 'Das Gerät konnte nicht entfernt werden: {detail}.',
    pushNoDevices: 'Kein Gerät hat Browser-Benachrichtigungen an.',
    pushUnknownDevice: 'Unbekannter Browser',
  },
  fr: {
    title: 'Notifications',
    bell: 'Notifications',
    unread: { one: '{count} non lue', other: '{count} non lues' },
    unreadMark: 'non lue',
    markAllRead: 'Tout marquer comme lu',
    markRead: 'Marquer comme lue',
    delete: 'Supprimer',
    loadMore: 'Afficher plus',
    loading: 'Chargement des notifications…',
    empty: 'Vous êtes à jour',
    emptyHint: 'Les nouvelles notifications apparaîtront ici.',
    close: 'Fermer',
    dismiss: 'Masquer',
    received: 'Nouvelle notification : {title}',
    offline: 'Mises à jour en direct en pause, vérification périodique',
    filter: 'Afficher',
    tabAll: 'Toutes',
    tabUnread: 'Non lues',
    tabArchived: 'Archivées',
    tabSnoozed: 'Reportées',
    archive: 'Archiver',
    unarchive: 'Remettre dans la boîte',
    archiveAllRead: 'Archiver les lues',
    snooze: 'Reporter',
    snoozeHour: '1 heure',
    snoozeTomorrow: 'Demain',
    snoozeNextWeek: 'La semaine prochaine',
    snoozedUntil: 'De retour {time}',
    collapsedActors: { one: '{actor} et {count} autre', other: '{actor} et {count} autres' },
    collapsedCount: { one: '{count} notification', other: '{count} notifications' },
    footer: 'Réglages des notifications',
    failedArchive: 'Impossible d’archiver : {detail}.',
    failedSnooze: 'Impossible de la reporter : {detail}.',
    failedLoad: 'Impossible de charger les notifications : {detail}.',
    failedMarkRead: 'Impossible de la marquer comme lue : {detail}.',
    failedMarkAllRead: 'Impossible de tout marquer comme lu : {detail}.',
    failedDelete: 'Impossible de la supprimer : {detail}.',
    unreachable: 'le serveur est injoignable',
    pushEnable: 'Activer les notifications du navigateur',
    pushOn: 'Les notifications du navigateur sont activées',
    pushFailed: 'Impossible d’activer les notifications du navigateur : {detail}.',
    pushDisable: 'Désactiver les notifications du navigateur',
    pushDisableFailed: 'Impossible de désactiver les notifications du navigateur : {detail}.',
    pushDevices: 'Appareils avec les notifications du navigateur',
    pushDevicesFailed: 'Impossible d’afficher les appareils : {detail}.',
    pushThisDevice: 'cet appareil',
    pushRemove: 'Retirer',
    pushRemoveDevice: 'Retirer {device}',
    pushRemoveFailed: 'Impossible de retirer l’appareil : {detail}.',
    pushNoDevices: 'Aucun appareil n’a les notifications du navigateur activées.',
    pushUnknownDevice: 'Navigateur inconnu',
  },
} as const satisfies Record<string, BellStrings>;

/** The words as the bell's templates use them: the counted and titled ones as functions. */
export interface BellLabels
  extends Omit<BellStrings, 'unread' | 'received' | 'collapsedActors' | 'collapsedCount' | 'snoozedUntil'> {
  readonly unread: (count: number) => string;
  /** A collapsed item's count text: "Ada and 9 others" with an actor, "10 notifications" without. */
  readonly collapsed: (count: number, actor: string | undefined) => string;
  /** Under a snoozed item: when it comes back, already worded (`in 3 hours`). */
  readonly snoozedUntil: (time: string) => string;
  readonly received: (title: string) => string;
  /** A failed request's message, from `failedLoad` … `failedDelete` and the reason. */
  readonly failed: (operation: BellOperation, detail: string) => string;
}

const FAILED: Record<BellOperation, keyof BellStrings & `failed${string}`> = {
  load: 'failedLoad',
  markRead: 'failedMarkRead',
  markAllRead: 'failedMarkAllRead',
  delete: 'failedDelete',
  archive: 'failedArchive',
  snooze: 'failedSnooze',
  // Seen is sent in the background and never shown as failed; the words are the load's.
  markSeen: 'failedLoad',
};

/** The shipped table for a language tag: `de-AT` → `de`; English for any language not shipped. */
export function stringsFor(locale: string): BellStrings {
  const tables: Record<string, BellStrings> = BELL_STRINGS;
  const exact = tables[locale.toLowerCase()];
  if (exact) return exact;
  return tables[locale.toLowerCase().split(/[-_]/)[0] ?? ''] ?? BELL_STRINGS.en;
}

function pluralText(text: PluralText, count: number, locale: string): string {
  if (typeof text === 'string') return text;
  return text[new Intl.PluralRules(locale).select(count)] ?? text.other;
}

function fill(text: string, params: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole);
}

/**
 * Builds the bell's labels for a language: the shipped table for `locale` (English if not shipped), with
 * `overrides` on top. Counts are formatted with `Intl.NumberFormat` and pluralised with `Intl.PluralRules`.
 *
 * @example
 * bellLabels('fr').unread(2); // '2 non lues'
 */
export function bellLabels(locale: string, overrides: Partial<BellStrings> = {}): BellLabels {
  const strings: BellStrings = { ...stringsFor(locale), ...overrides };
  let numbers: Intl.NumberFormat;
  try {
    numbers = new Intl.NumberFormat(locale);
  } catch {
    // A malformed language tag from the page: numbers as the browser formats them by default.
    numbers = new Intl.NumberFormat();
  }
  const safeLocale = numbers.resolvedOptions().locale;
  return {
    ...strings,
    unread: (count) => fill(pluralText(strings.unread, count, safeLocale), { count: numbers.format(count) }),
    received: (title) => fill(strings.received, { title }),
    collapsed: (count, actor) =>
      actor === undefined
        ? fill(pluralText(strings.collapsedCount, count, safeLocale), { count: numbers.format(count) })
        : fill(pluralText(strings.collapsedActors, count - 1, safeLocale), {
            actor,
            count: numbers.format(count - 1),
          }),
    snoozedUntil: (time) => fill(strings.snoozedUntil, { time }),
    failed: (operation, detail) => fill(strings[FAILED[operation]], { detail }),
  };
}
