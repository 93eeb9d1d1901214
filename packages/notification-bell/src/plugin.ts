import type { BellStore } from './bell-store.js';
import { makeNotification, type NotificationBuilder } from './builder.js';
import { notificationBell, notificationItem, notificationList } from './components.js';
import { rememberHostOptions } from './internal/host-options.js';
import type { BellOptionsInput } from './options.js';
import { notificationPush } from './push-control.js';
import { createBellStore } from './store.js';
import { type BellTemplates, renderBellMarkup, resolveTemplates } from './templates.js';

/** The part of Alpine the bell uses, so that any Alpine 3 the page already has will do. */
export interface AlpineLike {
  store(name: string): unknown;
  store(name: string, value: unknown): void;
  data(name: string, callback: (...args: never[]) => object): void;
}

/** The page's Alpine as `@herald/notification-bell/alpine` types it: what the README's setup calls. */
export interface HostAlpine extends AlpineLike {
  /** Registers a plugin, which is called with this same Alpine. */
  plugin(callback: (alpine: HostAlpine) => void): void;
  start(): void;
}

let registered: AlpineLike | undefined;

/**
 * Registers the store `notifications` and the components `notificationBell`, `notificationList` and
 * `notificationItem` with an Alpine instance. Use it as `Alpine.plugin(notificationBellPlugin)`.
 */
export function notificationBellPlugin(alpine: AlpineLike): void {
  if (registered === alpine) return;
  registered = alpine;
  if (!alpine.store('notifications')) alpine.store('notifications', createBellStore());
  alpine.data('notificationBell', notificationBell as (...args: never[]) => object);
  alpine.data('notificationList', notificationList as (...args: never[]) => object);
  alpine.data('notificationItem', notificationItem as (...args: never[]) => object);
  alpine.data('notificationPush', notificationPush as (...args: never[]) => object);
}

/** The store `notifications` of the Alpine the bell registered with. @throws {Error} before registration. */
export function notificationStore(): BellStore {
  const store = registered?.store('notifications') as BellStore | undefined;
  if (!store) throw new Error('the notification bell is not registered with Alpine yet');
  return store;
}

/**
 * Starts a notification made in the page: `make().title('Saved').message('Your draft is safe').send()` adds it
 * to the store (it stays in the page: read and delete do not reach the server).
 */
export function make(): NotificationBuilder {
  return makeNotification(notificationStore);
}

/**
 * Fills every `[data-notification-bell]` element under `root` with the bell's markup (templates resolved from
 * code, the page's `<template data-bell-template>` elements, then the defaults). `options` go over each
 * element's `data-options` (a token function, say, which JSON cannot carry). A started Alpine picks the new
 * markup up by itself; one not started yet does when it starts. Returns the elements it filled.
 *
 * @example
 * mountNotificationBells(document, {}, { apiUrl: 'https://notify.example.com/notification/notifications.json', authToken: () => myToken() });
 */
export function mountNotificationBells(
  root: ParentNode = document,
  templates: Partial<BellTemplates> = {},
  options?: BellOptionsInput,
): HTMLElement[] {
  const hosts = Array.from(
    root.querySelectorAll<HTMLElement>('[data-notification-bell]:not([data-bell-mounted])'),
  );
  for (const host of hosts) {
    const markup = renderBellMarkup(resolveTemplates(host, templates));
    host.setAttribute('data-bell-mounted', '');
    if (options) rememberHostOptions(host, options);
    for (const child of Array.from(host.children)) {
      if (child instanceof HTMLTemplateElement) child.remove();
    }
    host.insertAdjacentHTML('beforeend', markup);
  }
  return hosts;
}
