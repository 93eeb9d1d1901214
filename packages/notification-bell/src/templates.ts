import { TOOL_ICONS } from './icons.js';
import { PUSH_CONTROL_TEMPLATE } from './push-template.js';

/** The parts of the bell a page can replace, each an HTML string with Alpine directives. */
export interface BellTemplates {
  /** Inside the bell button: the icon (the badge and accessible name stay the bell's). */
  readonly bell: string;
  /** Shown while the first page loads. */
  readonly loading: string;
  /** Shown when there is nothing to show. */
  readonly empty: string;
  /** The list of items; each item's scope is `notificationItem(item)`. */
  readonly list: string;
  /** The control that loads the next page. */
  readonly loadMore: string;
  /**
   * Under the list, always shown while open: room for the page's or another module's controls (e.g. "Turn on
   * browser notifications"); empty by default, and then takes no space.
   */
  readonly footer: string;
}

/** The names of the replaceable parts. */
export const TEMPLATE_NAMES = ['bell', 'loading', 'empty', 'list', 'loadMore', 'footer'] as const;

const ITEM = `
<li class="herald-bell__item" x-data="notificationItem(item)" :class="classes" :data-notification-id="item.id">
  <button type="button" class="herald-bell__item-main" data-bell-focus @click="activate()">
    <span class="herald-bell__icon" :class="'herald-bell__icon--' + item.tone" aria-hidden="true">
      <template x-if="item.iconClass"><i :class="item.iconClass"></i></template>
      <template x-if="!item.iconClass"><span class="herald-bell__svg" x-html="iconSvg"></span></template>
    </span>
    <span class="herald-bell__text">
      <span class="herald-bell__title" x-text="item.title"></span>
      <span class="herald-bell__message" x-text="item.message" x-show="item.message"></span>
      <span class="herald-bell__collapsed" x-show="collapsedText" x-text="collapsedText"></span>
      <time class="herald-bell__time" :datetime="item.createdAt" x-text="timeAgo"></time>
      <span class="herald-bell__snoozed" x-show="snoozedText" x-text="snoozedText"></span>
    </span>
    <span class="herald-bell__sr" x-text="item.readAt ? '' : ', ' + labels.unreadMark"></span>
  </button>
  <span class="herald-bell__dot" x-show="!item.readAt" aria-hidden="true"></span>
  <span class="herald-bell__tools">
    <button type="button" class="herald-bell__tool" x-show="!item.readAt" @click="markAsRead()"
      :aria-label="labels.markRead + ': ' + item.title" :title="labels.markRead">${TOOL_ICONS.read}</button>
    <button type="button" class="herald-bell__tool" x-show="!item.archivedAt" @click="archive()"
      :aria-label="labels.archive + ': ' + item.title" :title="labels.archive">${TOOL_ICONS.archive}</button>
    <button type="button" class="herald-bell__tool" x-show="item.archivedAt" @click="unarchive()"
      :aria-label="labels.unarchive + ': ' + item.title" :title="labels.unarchive">${TOOL_ICONS.unarchive}</button>
    <button type="button" class="herald-bell__tool" x-show="!item.local" @click="snoozeOpen = !snoozeOpen"
      :aria-expanded="String(snoozeOpen)" :aria-label="labels.snooze + ': ' + item.title" :title="labels.snooze">${TOOL_ICONS.snooze}</button>
    <button type="button" class="herald-bell__tool herald-bell__tool--delete" @click="remove()"
      :aria-label="labels.delete + ': ' + item.title" :title="labels.delete">${TOOL_ICONS.delete}</button>
  </span>
  <span class="herald-bell__snooze" role="group" :aria-label="labels.snooze" x-show="snoozeOpen"
    @keydown.escape.stop="snoozeOpen = false">
    <template x-for="preset in ['hour', 'tomorrow', 'nextWeek']" :key="preset">
      <button type="button" class="herald-bell__snooze-option" @click="snooze(preset)"
        x-text="preset === 'hour' ? labels.snoozeHour : preset === 'tomorrow' ? labels.snoozeTomorrow : labels.snoozeNextWeek"></button>
    </template>
  </span>
  <span class="herald-bell__actions" x-show="item.actions.length > 0">
    <template x-for="action in item.actions" :key="action.name">
      <button type="button" class="herald-bell__action" :class="'herald-bell__action--' + action.tone"
        :disabled="action.isDisabled" @click="runAction(action)" x-text="action.label"></button>
    </template>
  </span>
</li>`;

/** The bell's own templates, used for every part the page does not replace. */
export const DEFAULT_TEMPLATES: BellTemplates = {
  bell: `<span class="herald-bell__bell-icon">${TOOL_ICONS.bell}</span>`,
  loading: `<div class="herald-bell__state herald-bell__state--loading" role="status">
  <span class="herald-bell__spinner" aria-hidden="true"></span><span x-text="labels.loading"></span>
</div>`,
  empty: `<div class="herald-bell__state herald-bell__state--empty">
  <span class="herald-bell__empty-icon" aria-hidden="true">${TOOL_ICONS.bell}</span>
  <strong x-text="labels.empty"></strong><span x-text="labels.emptyHint"></span>
</div>`,
  list: `<ul class="herald-bell__list" x-data="notificationList" :aria-label="labels.title">
  <template x-for="item in items" :key="item.id">${ITEM}
  </template>
</ul>`,
  footer: '',
  loadMore: `<div class="herald-bell__more">
  <button type="button" class="herald-bell__more-button" @click="loadMore()"
    :disabled="$store.notifications.isLoading" x-text="$store.notifications.isLoading ? labels.loading : labels.loadMore"></button>
</div>`,
};

/**
 * Picks each part: given in code first, then a `<template data-bell-template="name">` inside the bell's
 * element, then one anywhere in the document, then the default.
 */
export function resolveTemplates(host: Element, given: Partial<BellTemplates> = {}): BellTemplates {
  const doc = host.ownerDocument;
  const pick = (name: keyof BellTemplates): string => {
    const fromCode = given[name];
    if (fromCode !== undefined) return fromCode;
    const selector = `template[data-bell-template="${name}"]`;
    const found =
      host.querySelector<HTMLTemplateElement>(selector) ?? doc.querySelector<HTMLTemplateElement>(selector);
    return found ? found.innerHTML : DEFAULT_TEMPLATES[name];
  };
  return {
    bell: pick('bell'),
    loading: pick('loading'),
    empty: pick('empty'),
    list: pick('list'),
    loadMore: pick('loadMore'),
    footer: pick('footer'),
  };
}

/**
 * The whole widget's markup around the parts: button, badge, live region, dropdown or panel. The popover and
 * backdrop follow `isOpen` through the `hidden` attribute, which applies in the same tick; x-show would wait for an
 * animation frame, and a dropdown closed by a click outside could stay on screen while the store says closed.
 */
export function renderBellMarkup(parts: BellTemplates): string {
  return `<div class="herald-bell" x-data="notificationBell" :data-theme="theme"
  :class="['herald-bell--' + mode, 'herald-bell--' + position, $store.notifications.isOpen ? 'herald-bell--open' : '']"
  @keydown.escape="onEscape($event)" @click.outside="onOutside()"
  @keydown.window="onPageKeydown($event)" @focusin.window="onPageFocusin($event)">
  <button type="button" class="herald-bell__button" x-ref="button" @click="toggle()"
    @keydown.down.prevent="open()" aria-haspopup="dialog" :aria-expanded="String($store.notifications.isOpen)"
    :aria-controls="panelId" :aria-label="buttonLabel">
    ${parts.bell}
    <span class="herald-bell__badge" x-show="$store.notifications.unreadCount > 0" x-text="badgeText" aria-hidden="true"></span>
  </button>
  <div class="herald-bell__sr" aria-live="polite" aria-atomic="true" x-text="$store.notifications.announcement"></div>
  <div class="herald-bell__backdrop" :hidden="!($store.notifications.isOpen && mode === 'panel')" @click="close(true)"></div>
  <div class="herald-bell__popover" x-ref="panel" :id="panelId" role="dialog" tabindex="-1"
    :aria-modal="mode === 'panel' ? 'true' : 'false'" :aria-labelledby="titleId"
    :hidden="!$store.notifications.isOpen"
    @keydown.down="moveFocus($event, 1)" @keydown.up="moveFocus($event, -1)"
    @keydown.home="moveFocus($event, 'first')" @keydown.end="moveFocus($event, 'last')">
    <div class="herald-bell__header">
      <h2 class="herald-bell__heading" :id="titleId" x-text="labels.title"></h2>
      <span class="herald-bell__count" x-show="$store.notifications.unreadCount > 0"
        x-text="labels.unread($store.notifications.unreadCount)"></span>
      <span class="herald-bell__spacer"></span>
      <button type="button" class="herald-bell__close" @click="close(true)" :aria-label="labels.close"
        :title="labels.close">${TOOL_ICONS.close}</button>
    </div>
    <div class="herald-bell__toolbar" x-show="tabs || $store.notifications.unreadCount > 0">
      <div class="herald-bell__tabs" role="tablist" :aria-label="labels.filter" x-show="tabs"
        @keydown.left="moveTab($event, -1)" @keydown.right="moveTab($event, 1)">
        <template x-for="tab in tabNames" :key="tab">
          <button type="button" role="tab" class="herald-bell__tab" :id="tabIds[tab]"
            :aria-selected="String($store.notifications.filter === tab)" :aria-controls="panelId + '-list'"
            :tabindex="$store.notifications.filter === tab ? 0 : -1" @click="showTab(tab)"><span
            class="herald-bell__tab-name" x-text="tabLabel(tab)"></span><span class="herald-bell__tab-count"
            x-show="tabCount(tab)" x-text="tabCount(tab)"></span></button>
        </template>
      </div>
      <span class="herald-bell__spacer"></span>
      <button type="button" class="herald-bell__mark-all" x-show="$store.notifications.unreadCount > 0"
        @click="$store.notifications.markAllAsRead()">${TOOL_ICONS.readAll}<span x-text="labels.markAllRead"></span></button>
      <button type="button" class="herald-bell__archive-read" x-show="canArchiveRead()"
        @click="$store.notifications.archiveAllRead()">${TOOL_ICONS.archive}<span x-text="labels.archiveAllRead"></span></button>
    </div>
    <div class="herald-bell__error" role="alert" x-show="$store.notifications.error">
      <span x-text="$store.notifications.error"></span>
      <button type="button" class="herald-bell__dismiss" @click="$store.notifications.dismissError()" x-text="labels.dismiss"></button>
    </div>
    <div class="herald-bell__status" x-show="$store.notifications.connection === 'down'" x-text="labels.offline"></div>
    <div class="herald-bell__body" :id="panelId + '-list'" :role="tabs ? 'tabpanel' : null"
      :aria-labelledby="tabs ? tabIds[$store.notifications.filter] : null">
      <template x-if="$store.notifications.isLoading && $store.notifications.items.length === 0">
        <div class="herald-bell__slot">${parts.loading}</div>
      </template>
      <template x-if="!$store.notifications.isLoading && $store.notifications.items.length === 0">
        <div class="herald-bell__slot">${parts.empty}</div>
      </template>
      <div class="herald-bell__slot" x-show="$store.notifications.items.length > 0">${parts.list}</div>
      <template x-if="$store.notifications.hasMore">
        <div class="herald-bell__slot">${parts.loadMore}</div>
      </template>
    </div>
    ${PUSH_CONTROL_TEMPLATE}
    <div class="herald-bell__footer" data-bell-slot="footer" role="group" :aria-label="labels.footer">${parts.footer}</div>
  </div>
</div>`;
}
