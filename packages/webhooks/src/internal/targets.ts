import { createHash } from 'node:crypto';
import type { WebhookConfig } from '../config.js';
import type { WebhookEvent } from '../events.js';
import type { WebhookApp } from '../options.js';

/** Where a batch goes: one URL with one set of headers. Webhook entries that share both share a target. */
export interface Target {
  readonly lane: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The entries of this target: an event is sent once if any of them wants it. */
  readonly filters: ReadonlyArray<(event: WebhookEvent) => boolean>;
}

function filterOf(webhook: WebhookConfig): (event: WebhookEvent) => boolean {
  const types = new Set<string>(webhook.event_types);
  const prefix = webhook.filter?.channel_name_starts_with;
  const suffix = webhook.filter?.channel_name_ends_with;
  return (event) =>
    types.has(event.name) &&
    (prefix === undefined || event.channel.startsWith(prefix)) &&
    (suffix === undefined || event.channel.endsWith(suffix));
}

/** The lane id: the same on every node for the same app, URL and headers, so a shared queue keeps one order. */
export function laneOf(appId: string, url: string, headers: Readonly<Record<string, string>>): string {
  const canonical = JSON.stringify([
    appId,
    url,
    Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1)),
  ]);
  return createHash('sha1').update(canonical).digest('hex');
}

/** Groups an app's webhook entries by target. */
export function compileTargets(appId: string, webhooks: readonly WebhookConfig[]): Target[] {
  const byLane = new Map<string, { target: Target; filters: Array<(event: WebhookEvent) => boolean> }>();
  for (const webhook of webhooks) {
    const headers = webhook.headers ?? {};
    const lane = laneOf(appId, webhook.url, headers);
    let found = byLane.get(lane);
    if (!found) {
      const filters: Array<(event: WebhookEvent) => boolean> = [];
      found = { target: { lane, url: webhook.url, headers, filters }, filters };
      byLane.set(lane, found);
    }
    found.filters.push(filterOf(webhook));
  }
  return [...byLane.values()].map(({ target }) => target);
}

/** Whether a target wants an event. */
export const wants = (target: Target, event: WebhookEvent): boolean =>
  target.filters.some((filter) => filter(event));

/** Looks up an app's targets, compiled once per app object (the same object while the app is unchanged). */
export type TargetLookup = (appId: string, app: WebhookApp) => readonly Target[];

/** Creates a {@link TargetLookup} with its own cache. */
export function createTargetLookup(): TargetLookup {
  const compiled = new WeakMap<WebhookApp, Target[]>();
  return (appId, app) => {
    let targets = compiled.get(app);
    if (!targets) {
      targets = compileTargets(appId, app.webhooks);
      compiled.set(app, targets);
    }
    return targets;
  };
}
