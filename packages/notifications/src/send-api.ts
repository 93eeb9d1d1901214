import { setImmediate as nextTurn } from 'node:timers/promises';
import { safeEqual } from '@herald/protocol-core';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { dataNotification } from './data-notification.js';
import { NotificationError } from './errors.js';
import { bearerToken, describeIssues, type FieldIssue, readJsonBody } from './internal/http.js';
import { storeConnectionOf } from './internal/store-connection.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import type { Notifiable } from './notification.js';
import { type NotificationData, notificationDataSchema } from './notification-data.js';
import type { Notifier, SendReport } from './notifier.js';
import { createSendIdempotency, isIdempotencyKey, type SendAnswer } from './send-idempotency.js';
import type { NotificationStore } from './store.js';

/** Options of {@link createSendApi}. */
export interface SendApiOptions {
  /** The sender whose channels the API sends through. */
  readonly notifier: Notifier;
  /**
   * A store made by `createNotificationStore`: the send API keeps its idempotency keys in the store's database
   * (the notifications themselves are stored by the notifier's channels).
   */
  readonly store: NotificationStore;
  /**
   * The API secret other backends send as `Authorization: Bearer <secret>`. Without one, every request
   * answers 503 `send_api_disabled`.
   */
  readonly secret: string | undefined;
  /** The channels used when a request names none (default: `database`, and `broadcast` when registered). */
  readonly defaultChannels?: readonly string[] | undefined;
  /** The most recipients one request may name (default 10,000). */
  readonly maxRecipients?: number | undefined;
  /** The largest request body accepted, in bytes (default 2 MiB: room for 10,000 long ids); larger is a 413. */
  readonly maxBodyBytes?: number | undefined;
  /** Recipients sent per step; between steps other requests get their turn (default 500). */
  readonly chunkSize?: number | undefined;
  /**
   * Per notification type, its away delivery: `{ CommentReplied: { away_after_seconds: 60,
   * digest_window_seconds: 300 } }`. A request's own fields win.
   */
  readonly types?: Readonly<Record<string, NotificationTypeSettings>> | undefined;
  /** How long an idempotency key is remembered (default 24 hours). */
  readonly idempotencyTtlMs?: number | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** How a notification type is delivered to recipients who are away (no bell open). */
export interface NotificationTypeSettings {
  /** Seconds after sending at which a recipient with no bell open gets it on their away channels; unset: never. */
  readonly away_after_seconds?: number | undefined;
  /** Away deliveries to one recipient within this many seconds of the first one due go out as one digest (0: none). */
  readonly digest_window_seconds?: number | undefined;
  /** The away channels (`email`, `teamchat`…); every away channel the service has when not given. */
  readonly away_channels?: readonly string[] | undefined;
}

/** The error codes the send API answers with, each with its HTTP status. */
export type SendApiErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'validation_failed'
  | 'idempotency_key_in_progress'
  | 'idempotency_key_reused'
  | 'payload_too_large'
  | 'internal_error'
  | 'send_api_disabled';

const STATUS: Record<SendApiErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unauthenticated: 401,
  validation_failed: 422,
  idempotency_key_in_progress: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  internal_error: 500,
  send_api_disabled: 503,
};

/** The route the send API answers on. */
export const SEND_ROUTE = '/notification/send';

/** The header a retried request carries so that it is sent only once. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The header set on an answer replayed for a retried request. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** What `POST /notification/send` takes. */
export interface SendRequest extends NotificationTypeSettings {
  /** The users to notify, by id (or with their email address: `{ id, email }`): one or many. */
  readonly recipients: SendRecipient | ReadonlyArray<SendRecipient>;
  /** Their notifiable type (`User` by default). */
  readonly notifiable_type?: string | undefined;
  /** The notification type, as stored and as preferences name it (e.g. `InvoicePaid`). */
  readonly type: string;
  /** The stored data: `title` and `message`, and the bell's optional keys. */
  readonly data: NotificationData;
  /** The channels to send through (`database`, `broadcast`, `teamchat`, `teamchat-alerts`…). */
  readonly channels?: readonly string[] | undefined;
  /**
   * Folds notifications with this key: each recipient's unread one with the same key is replaced by this one,
   * which counts it (`collapse_count`; `collapse_actors` from `data.actor`). 1 to 255 characters.
   */
  readonly collapse_key?: string | undefined;
  /**
   * An ISO-8601 time with offset, in the future and at most a year ahead: after it the notification is never
   * listed, counted or delivered.
   */
  readonly expires_at?: string | undefined;
}

/** A recipient of the send API: a user id, or the id with the address email goes to. */
export type SendRecipient =
  | string
  | number
  | { readonly id: string | number; readonly email?: string | undefined };

/** One delivery that failed, as the send API reports it. */
export interface SendResultFailure {
  readonly channel: string;
  readonly recipient: string;
  readonly id: string;
  readonly code: string;
  readonly message: string;
}

/** What `POST /notification/send` answers (inside `data`). */
export interface SendResult {
  /** True when every delivery went through. */
  readonly ok: boolean;
  /** The notification id of each recipient, in the order given (duplicates removed). */
  readonly notifications: ReadonlyArray<{ readonly recipient: string; readonly id: string }>;
  /** Deliveries made, per channel. */
  readonly delivered: Readonly<Record<string, number>>;
  /** Deliveries left out because the recipient's preferences refuse the channel, per channel. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly failures: readonly SendResultFailure[];
}

const recipientId = z.union([z.string().trim().min(1).max(255), z.number().int().nonnegative()]);
const recipient = z.union([
  recipientId,
  z.strictObject({ id: recipientId, email: z.email().max(320).optional() }),
]);
const seconds = z
  .number()
  .int()
  .min(0)
  .max(30 * 24 * 60 * 60);

/** The settings of a notification type, as the send API and a service's configuration take them. */
export const notificationTypeSettingsSchema = z.strictObject({
  away_after_seconds: seconds.optional(),
  digest_window_seconds: seconds.optional(),
  away_channels: z.array(z.string().min(1)).optional(),
});

/** The furthest ahead `expires_at` may be: a year. */
const MAX_EXPIRY_MS = 366 * 24 * 60 * 60 * 1000;

const expiresAt = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
  .refine((value) => Date.parse(value) - Date.now() <= MAX_EXPIRY_MS, 'must be at most a year ahead');

function sendBodySchema(maxRecipients: number) {
  return z.strictObject({
    recipients: z.preprocess(
      (value) => (value === undefined || Array.isArray(value) ? value : [value]),
      z.array(recipient).min(1).max(maxRecipients),
    ),
    ...notificationTypeSettingsSchema.shape,
    notifiable_type: z.string().min(1).max(255).default('User'),
    type: z.string().min(1).max(255),
    data: notificationDataSchema,
    channels: z.array(z.string().min(1)).min(1).optional(),
    collapse_key: z.string().trim().min(1).max(255).optional(),
    expires_at: expiresAt.optional(),
  });
}

function errorBody(code: SendApiErrorCode, message: string, issues?: readonly FieldIssue[]) {
  return { error: issues ? { code, message, issues } : { code, message } };
}

function apiError(c: Context, code: SendApiErrorCode, message: string, issues?: readonly FieldIssue[]) {
  return c.json(errorBody(code, message, issues), STATUS[code]);
}

/** The type settings a request names itself (unset ones fall back to the type's). */
function definedSettings(request: NotificationTypeSettings): NotificationTypeSettings {
  return {
    ...(request.away_after_seconds === undefined ? {} : { away_after_seconds: request.away_after_seconds }),
    ...(request.digest_window_seconds === undefined
      ? {}
      : { digest_window_seconds: request.digest_window_seconds }),
    ...(request.away_channels === undefined ? {} : { away_channels: request.away_channels }),
  };
}

function mergeCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [name, count] of Object.entries(from)) into[name] = (into[name] ?? 0) + count;
}

/**
 * Creates the send API as a hono router: `POST /notification/send` lets another backend notify users,
 * authenticated by the API secret, with `Idempotency-Key` support and recipients sent in chunks.
 *
 * @throws {NotificationError} `invalid_options` when `store` was not made by `createNotificationStore`.
 * @example
 * app.route('/', createSendApi({ notifier, store, secret: process.env.NOTIFICATION_API_SECRET }));
 */
export function createSendApi(options: SendApiOptions): Hono {
  const { notifier } = options;
  const connection = storeConnectionOf(options.store);
  if (connection === undefined) {
    throw new NotificationError(
      'invalid_options',
      'the send API keeps its idempotency keys in a store made by createNotificationStore',
    );
  }
  const idempotency = createSendIdempotency(connection, options.idempotencyTtlMs ?? 24 * 60 * 60 * 1000);
  const logger = options.logger ?? silentNotificationLogger;
  const maxRecipients = options.maxRecipients ?? 10_000;
  const chunkSize = Math.max(1, options.chunkSize ?? 500);
  const registered = new Set(notifier.channelNames);
  const defaultChannels =
    options.defaultChannels ?? ['database', 'broadcast'].filter((name) => registered.has(name));
  const bodySchema = sendBodySchema(maxRecipients);
  const app = new Hono();

  const send = async (
    request: z.output<typeof bodySchema>,
    channels: readonly string[],
    progress: { sent: number } = { sent: 0 },
  ) => {
    const emails = new Map<string, string>();
    const ids = request.recipients.map((item) => {
      if (typeof item !== 'object') return String(item);
      if (item.email !== undefined) emails.set(String(item.id), item.email);
      return String(item.id);
    });
    const recipients = [...new Set(ids)];
    const settings = { ...options.types?.[request.type], ...definedSettings(request) };
    const awayChannels = settings.away_channels;
    const notification = dataNotification(request.type, request.data, {
      via: () => channels,
      awayAfterSeconds: settings.away_after_seconds,
      digestWindowSeconds: settings.digest_window_seconds,
      ...(awayChannels ? { awayVia: () => awayChannels } : {}),
      collapseKey: request.collapse_key,
      expiresAt: request.expires_at === undefined ? undefined : new Date(request.expires_at),
    });
    const result = {
      notifications: [] as Array<{ recipient: string; id: string }>,
      delivered: {} as Record<string, number>,
      skipped: {} as Record<string, number>,
      failures: [] as SendResultFailure[],
    };
    for (let start = 0; start < recipients.length; start += chunkSize) {
      // Yield between chunks so a bulk send never holds the event loop for long.
      if (start > 0) await nextTurn();
      const chunk = recipients.slice(start, start + chunkSize);
      const notifiables: Notifiable[] = chunk.map((id) => ({
        type: request.notifiable_type,
        id,
        routeNotificationFor: (channel) => (channel === 'email' ? emails.get(id) : undefined),
      }));
      const report: SendReport = await notifier.send(notifiables, notification);
      progress.sent += chunk.length;
      for (const [index, id] of report.ids.entries()) {
        result.notifications.push({ recipient: chunk[index] as string, id });
      }
      mergeCounts(result.delivered, report.delivered);
      mergeCounts(result.skipped, report.skipped);
      for (const failure of report.failures) {
        result.failures.push({
          channel: failure.channel,
          recipient: String(failure.notifiable.id),
          id: failure.id,
          code: failure.error.code,
          message: failure.error.message,
        });
      }
    }
    return { ok: result.failures.length === 0, ...result } satisfies SendResult;
  };

  app.onError((error, c) => {
    logger.error('send API failed', { err: error.message, path: c.req.path });
    return apiError(c, 'internal_error', 'something went wrong');
  });

  const limit = bodyLimit({
    maxSize: options.maxBodyBytes ?? 2 * 1024 * 1024,
    onError: (c) => apiError(c, 'payload_too_large', 'the request body is too large'),
  });

  app.post(SEND_ROUTE, limit, async (c) => {
    if (!options.secret) {
      return apiError(c, 'send_api_disabled', 'the send API has no secret configured');
    }
    const sent = bearerToken(c.req.header('authorization'));
    if (sent === undefined || !safeEqual(sent, options.secret)) {
      return apiError(c, 'unauthenticated', 'send the API secret as "Authorization: Bearer <secret>"');
    }
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (key !== undefined && !isIdempotencyKey(key)) {
      const issues = [
        { path: 'headers.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ];
      return apiError(c, 'validation_failed', describeIssues(issues), issues);
    }
    const body = await readJsonBody(c, bodySchema);
    if (!body.ok) {
      return body.reason === 'not_json'
        ? apiError(c, 'bad_request', 'the request body is not valid JSON')
        : apiError(c, 'validation_failed', describeIssues(body.issues), body.issues);
    }
    const channels = body.value.channels ?? defaultChannels;
    const unknown: FieldIssue[] = channels.flatMap((name, index) =>
      registered.has(name)
        ? []
        : [
            {
              path: body.value.channels ? `channels.${index}` : 'channels',
              message: `no channel named "${name}" (available: ${[...registered].join(', ')})`,
            },
          ],
    );
    const away = new Set(notifier.awayChannelNames);
    for (const [index, name] of (body.value.away_channels ?? []).entries()) {
      if (!away.has(name)) {
        unknown.push({
          path: `away_channels.${index}`,
          message: `no away channel named "${name}" (available: ${[...away].join(', ') || 'none'})`,
        });
      }
    }
    if (unknown.length > 0) return apiError(c, 'validation_failed', describeIssues(unknown), unknown);

    /**
     * Sends, and answers what to reply: the result, or a 500 naming how far it got when it stopped part way
     * (a failure before anything went out is thrown, for `onError`).
     */
    const attempt = async (): Promise<SendAnswer> => {
      const progress = { sent: 0 };
      try {
        return { status: 200, body: { data: await send(body.value, channels, progress) } };
      } catch (error) {
        if (progress.sent === 0) throw error;
        logger.error('send API stopped part way', {
          sent: progress.sent,
          err: error instanceof Error ? error.message : String(error),
        });
        return {
          status: STATUS.internal_error,
          body: errorBody('internal_error', `sending stopped after ${progress.sent} recipients`),
        };
      }
    };

    if (key === undefined) {
      const answer = await attempt();
      return c.json(answer.body, answer.status);
    }

    const outcome = await idempotency.once(key, body.value, attempt);
    switch (outcome.kind) {
      case 'reused':
        return apiError(
          c,
          'idempotency_key_reused',
          `the ${IDEMPOTENCY_KEY_HEADER} was already used for a different request`,
        );
      case 'in_progress':
        return apiError(
          c,
          'idempotency_key_in_progress',
          `a request with this ${IDEMPOTENCY_KEY_HEADER} is still being sent; retry later`,
        );
      case 'replayed':
        c.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
        return c.json(outcome.answer.body, outcome.answer.status);
      case 'sent':
        return c.json(outcome.answer.body, outcome.answer.status);
    }
  });

  return app;
}
