import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { NotificationChange } from './broadcaster.js';
import { registerInboxRoutes } from './inbox-routes.js';
import { describeIssues, type FieldIssue, fieldIssues, readJsonBody } from './internal/http.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import { INBOX_TABS, type NotifiableKey } from './record.js';
import type { NotificationStore } from './store.js';
import { createUserAuth, type UserAuthOptions } from './user-auth.js';

/**
 * Options of {@link createNotificationApi}. Users are found by `userTokens` (a bearer user token) and/or the
 * host's `authenticate` hook (then writes need the `csrfToken`); with neither, every route answers 401.
 */
export interface NotificationApiOptions extends UserAuthOptions {
  readonly store: NotificationStore;
  /**
   * The channel names users may set preferences for (`PUT /notification/preferences.json` refuses others);
   * any name is accepted when not given.
   */
  readonly channels?: readonly string[] | undefined;
  /** The largest `limit` a list honours (default 100); larger ones are lowered to it. */
  readonly maxLimit?: number | undefined;
  /** Told of every change so other tabs can follow (e.g. `broadcaster.publishChange`); its failures are logged. */
  readonly onChange?:
    | ((owner: NotifiableKey, change: NotificationChange) => Promise<void> | void)
    | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** The error codes the JSON API answers with, each with its HTTP status. */
export type NotificationApiErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'csrf_token_mismatch'
  | 'notification_not_found'
  | 'validation_failed'
  | 'internal_error';

const STATUS: Record<NotificationApiErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unauthenticated: 401,
  csrf_token_mismatch: 403,
  notification_not_found: 404,
  validation_failed: 422,
  internal_error: 500,
};

type Env = { Variables: { owner: NotifiableKey } };

function apiError(c: Context, code: NotificationApiErrorCode, message: string) {
  return c.json({ error: { code, message } }, STATUS[code]);
}

/** A 422 naming every field at fault, both in the message and as `issues[{path, message}]`. */
function invalid(c: Context, issues: readonly FieldIssue[]) {
  return c.json(
    { error: { code: 'validation_failed', message: describeIssues(issues), issues } },
    STATUS.validation_failed,
  );
}

const dateTime = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
/** Where the signed-in user reads and replaces their channel preferences. */
export const PREFERENCES_ROUTE = '/notification/preferences.json';

const name255 = z.string().min(1).max(255);
const preferencesBody = z.strictObject({
  types: z
    .record(name255, z.record(name255, z.boolean()))
    .refine((types) => Object.keys(types).length <= 200, 'at most 200 notification types'),
});
const markAllBody = z.strictObject({ type: z.string().min(1).optional(), before: dateTime.optional() });
const deleteAllBody = z.strictObject({
  status: z.enum(['all', 'read', 'unread']).optional(),
  type: z.string().min(1).optional(),
  before: dateTime.optional(),
});

/**
 * Creates the notifications JSON API as a hono router: lists, one notification, mark read, mark all read,
 * delete one, delete all, every route scoped to the signed-in user.
 *
 * @example
 * app.route('/', createNotificationApi({ store, authenticate: (c) => sessionUser(c), csrfToken: (c) => sessionCsrf(c) }));
 */
export function createNotificationApi(options: NotificationApiOptions): Hono<Env> {
  const { store } = options;
  const maxLimit = options.maxLimit ?? 100;
  const logger = options.logger ?? silentNotificationLogger;
  const app = new Hono<Env>();
  const identify = createUserAuth(options);

  const listQuery = z.object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .default(20)
      .transform((limit) => Math.min(limit, maxLimit)),
    status: z.enum(['all', 'read', 'unread']).default('all'),
    type: z.string().min(1).optional(),
    tab: z.enum(INBOX_TABS).default('inbox'),
  });

  const notify = async (owner: NotifiableKey, change: NotificationChange) => {
    if (!options.onChange) return;
    try {
      await options.onChange(owner, change);
    } catch (error) {
      logger.warn('change not published', {
        event: change.event,
        err: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const readBody = async <T extends z.ZodType>(c: Context, schema: T) => {
    const body = await readJsonBody(c, schema);
    if (body.ok) return { value: body.value } as const;
    if (body.reason === 'not_json')
      return { response: apiError(c, 'bad_request', 'the request body is not valid JSON') } as const;
    return { response: invalid(c, body.issues) } as const;
  };

  const list = async (c: Context<Env>, forced?: 'unread') => {
    const parsed = listQuery.safeParse(c.req.query());
    if (!parsed.success) return invalid(c, fieldIssues(parsed.error));
    const { page, limit, type } = parsed.data;
    const tab = forced ?? parsed.data.tab;
    const result = await store.list(
      c.get('owner'),
      { page, limit },
      { status: forced ? 'all' : parsed.data.status, type, tab },
    );
    const totalPages = Math.ceil(result.total / limit);
    return c.json({
      data: result.records,
      pagination: {
        page,
        limit,
        total: result.total,
        total_pages: totalPages,
        has_next_page: page < totalPages,
        has_prev_page: page > 1,
      },
      meta: { unread_count: result.unreadCount },
    });
  };

  const notFound = (c: Context) => apiError(c, 'notification_not_found', 'Notification not found');

  app.onError((error, c) => {
    logger.error('notification API failed', { err: error.message, path: c.req.path });
    return apiError(c, 'internal_error', 'something went wrong');
  });

  // Only the API's own paths: other routers (the send API) may share the `/notification` prefix.
  const guard: MiddlewareHandler<Env> = async (c, next) => {
    const outcome = await identify(c, { write: c.req.method !== 'GET' && c.req.method !== 'HEAD' });
    if (!outcome.ok) return apiError(c, outcome.code, outcome.message);
    const { user } = outcome;
    c.set('owner', { type: user.type ?? 'User', id: String(user.id) });
    return next();
  };

  const base = '/notification/notifications';
  app.use(`${base}.json`, guard);
  app.use(`${base}/*`, guard);
  app.use(PREFERENCES_ROUTE, guard);

  const answerPreferences = async (c: Context<Env>) =>
    c.json({
      data: { types: await store.getPreferences(c.get('owner')) },
      meta: options.channels ? { channels: options.channels } : {},
    });
  app.get(PREFERENCES_ROUTE, answerPreferences);
  app.put(PREFERENCES_ROUTE, async (c) => {
    const body = await readBody(c, preferencesBody);
    if ('response' in body) return body.response;
    if (options.channels) {
      const known = new Set(options.channels);
      const unknown = Object.entries(body.value.types).flatMap(([type, channels]) =>
        Object.keys(channels)
          .filter((channel) => !known.has(channel))
          .map((channel) => ({
            path: `types.${type}.${channel}`,
            message: `no channel named "${channel}" (available: ${options.channels?.join(', ')})`,
          })),
      );
      if (unknown.length > 0) return invalid(c, unknown);
    }
    await store.setPreferences(c.get('owner'), body.value.types);
    return answerPreferences(c);
  });

  registerInboxRoutes(app, { store, base, readBody, invalid, notFound, notify });
  app.get(`${base}.json`, (c) => list(c));
  app.get(`${base}/unread.json`, (c) => list(c, 'unread'));

  app.delete(`${base}.json`, async (c) => {
    const body = await readBody(c, deleteAllBody);
    if ('response' in body) return body.response;
    const owner = c.get('owner');
    const { status, ...rest } = body.value;
    const deleted = await store.deleteAll(owner, { ...rest, status: status ?? 'all' });
    const unread = await store.unreadCount(owner);
    await notify(owner, {
      event: 'notification.deleted-all',
      data: { deleted_count: deleted, unread_count: unread },
    });
    return c.json({ data: { deleted_count: deleted }, meta: { unread_count: unread } });
  });

  app.patch(`${base}/mark-all-read.json`, async (c) => {
    const body = await readBody(c, markAllBody);
    if ('response' in body) return body.response;
    const owner = c.get('owner');
    const marked = await store.markAllRead(owner, body.value);
    const unread = await store.unreadCount(owner);
    await notify(owner, {
      event: 'notification.marked-all-read',
      data: { marked_count: marked, unread_count: unread },
    });
    return c.json({ data: { marked_count: marked }, meta: { unread_count: unread } });
  });

  app.patch(`${base}/:id/read.json`, async (c) => {
    const owner = c.get('owner');
    const outcome = await store.markRead(owner, c.req.param('id'));
    if (outcome === undefined) return notFound(c);
    const unread = await store.unreadCount(owner);
    if (outcome.changed) {
      await notify(owner, {
        event: 'notification.marked-read',
        data: { notification_id: outcome.record.id, unread_count: unread },
      });
    }
    return c.json({ data: outcome.record, meta: { unread_count: unread, changed: outcome.changed } });
  });

  app.get(`${base}/:file{[^/]+\\.json}`, async (c) => {
    const record = await store.find(c.get('owner'), c.req.param('file').slice(0, -'.json'.length));
    return record === undefined ? notFound(c) : c.json({ data: record });
  });

  app.delete(`${base}/:file{[^/]+\\.json}`, async (c) => {
    const owner = c.get('owner');
    const id = c.req.param('file').slice(0, -'.json'.length);
    if (!(await store.delete(owner, id))) return notFound(c);
    const unread = await store.unreadCount(owner);
    await notify(owner, {
      event: 'notification.deleted',
      data: { notification_id: id, unread_count: unread },
    });
    return c.json({ data: { id }, meta: { unread_count: unread } });
  });

  return app;
}
