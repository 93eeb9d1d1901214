import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { InboxChange, NotificationChange } from './broadcaster.js';
import type { InboxChangeOutcome } from './inbox-queries.js';
import type { FieldIssue } from './internal/http.js';
import type { NotifiableKey } from './record.js';
import type { NotificationStore } from './store.js';

/** The longest a notification may be snoozed for: 30 days. */
export const MAX_SNOOZE_MS = 30 * 24 * 60 * 60 * 1000;

/** The most ids one "mark seen" request may carry. */
export const MAX_SEEN_IDS = 100;

type Env = { Variables: { owner: NotifiableKey } };

/** What the JSON API hands its inbox routes: the store and its own ways of answering. */
export interface InboxRouteDeps {
  readonly store: NotificationStore;
  readonly base: string;
  readBody<T extends z.ZodType>(
    c: Context,
    schema: T,
  ): Promise<{ readonly value: z.output<T> } | { readonly response: Response }>;
  invalid(c: Context, issues: readonly FieldIssue[]): Response;
  notFound(c: Context): Response;
  notify(owner: NotifiableKey, change: NotificationChange): Promise<void>;
}

const seenBody = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(1).max(MAX_SEEN_IDS),
});
const snoozeBody = z.strictObject({
  until: z.iso.datetime({ offset: true }).transform((value) => new Date(value)),
});

/**
 * Adds the inbox-state routes: counts per tab, mark seen in batches, archive and unarchive one, archive all
 * read, snooze one. Registered before the `/{id}.json` routes, whose pattern would take their names.
 */
export function registerInboxRoutes(app: Hono<Env>, deps: InboxRouteDeps): void {
  const { store, base } = deps;

  const changed = async (owner: NotifiableKey, change: Omit<InboxChange, 'unread_count'>) => {
    const unread = await store.unreadCount(owner);
    await deps.notify(owner, {
      event: 'notification.inbox-changed',
      data: { ...change, unread_count: unread },
    });
    return unread;
  };

  app.get(`${base}/counts.json`, async (c) => {
    const counts = await store.inboxCounts(c.get('owner'));
    return c.json({ data: counts, meta: { unread_count: counts.unread } });
  });

  app.patch(`${base}/seen.json`, async (c) => {
    const body = await deps.readBody(c, seenBody);
    if ('response' in body) return body.response;
    const owner = c.get('owner');
    const ids = [...new Set(body.value.ids)];
    const seen = await store.markSeen(owner, ids);
    const unread =
      seen > 0
        ? await changed(owner, { change: 'seen', notification_ids: ids })
        : await store.unreadCount(owner);
    return c.json({ data: { seen_count: seen }, meta: { unread_count: unread } });
  });

  app.patch(`${base}/archive-read.json`, async (c) => {
    const owner = c.get('owner');
    const archived = await store.archiveAllRead(owner);
    const unread = await changed(owner, { change: 'archived-all-read', notification_ids: [] });
    return c.json({ data: { archived_count: archived }, meta: { unread_count: unread } });
  });

  const one =
    (
      change: 'archived' | 'unarchived' | 'snoozed',
      act: (
        c: Context<Env>,
        owner: NotifiableKey,
        id: string,
      ) => Promise<InboxChangeOutcome | undefined | Response>,
    ) =>
    async (c: Context<Env>) => {
      const owner = c.get('owner');
      const outcome = await act(c, owner, c.req.param('id') ?? '');
      if (outcome instanceof Response) return outcome;
      if (outcome === undefined) return deps.notFound(c);
      const unread = outcome.changed
        ? await changed(owner, { change, notification_ids: [outcome.record.id] })
        : await store.unreadCount(owner);
      return c.json({ data: outcome.record, meta: { unread_count: unread, changed: outcome.changed } });
    };

  app.patch(
    `${base}/:id/archive.json`,
    one('archived', (_c, owner, id) => store.archive(owner, id)),
  );
  app.patch(
    `${base}/:id/unarchive.json`,
    one('unarchived', (_c, owner, id) => store.unarchive(owner, id)),
  );
  app.patch(
    `${base}/:id/snooze.json`,
    one('snoozed', async (c, owner, id) => {
      const body = await deps.readBody(c, snoozeBody);
      if ('response' in body) return body.response;
      const wait = body.value.until.getTime() - Date.now();
      if (wait <= 0) return deps.invalid(c, [{ path: 'until', message: 'must be in the future' }]);
      if (wait > MAX_SNOOZE_MS) {
        return deps.invalid(c, [{ path: 'until', message: 'must be at most 30 days ahead' }]);
      }
      return store.snooze(owner, id, body.value.until);
    }),
  );
}
