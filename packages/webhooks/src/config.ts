import { fail, ok, type Result } from '@herald/protocol-core';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from './events.js';

// The config shape soketi users already write (`applications[].webhooks`), with snake_case keys, for
// apps/realtime to embed in its own schema: every problem then carries its key path.

/** Headers the dispatcher sets itself (lower case); a webhook's own `headers` may not replace them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'x-pusher-key',
  'x-pusher-signature',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const headersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid HTTP header name' });
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is set by the server and cannot be overridden',
      });
    }
    if (/[\r\n\0]/.test(value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'must not contain line breaks' });
    }
  }
});

/** One webhook: where to POST, which events, which channels, and extra request headers. */
export const webhookSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    event_types: z
      .array(
        z.enum(WEBHOOK_EVENT_TYPES, {
          error: (issue) =>
            `unknown event type ${JSON.stringify(issue.input)} (expected one of ${WEBHOOK_EVENT_TYPES.join(', ')})`,
        }),
      )
      .min(1, 'must list at least one event type'),
    filter: z
      .object({
        channel_name_starts_with: z.string().min(1).optional(),
        channel_name_ends_with: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    headers: headersSchema.optional(),
  })
  .strict();

/** An application's webhook list (`applications[].webhooks`). */
export const webhookListSchema = z.array(webhookSchema);

/** Batching of events close together into one request per webhook URL. */
export const webhookBatchingSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** How long the first event of a batch waits for others. */
    window_ms: z.number().int().min(0).default(50),
    /** A batch is sent at once when it holds this many events. */
    max_events: z.number().int().positive().default(100),
  })
  .strict();

/** Server-wide delivery settings, each with its default. */
export const webhookSettingsSchema = z
  .object({
    batching: webhookBatchingSchema.prefault({}),
    retry: z
      .object({
        /** How long after it was queued a request is retried before it is dropped. */
        max_elapsed_ms: z.number().int().min(0).default(300_000),
        /** The first retry waits up to this long; each further one up to twice as long. */
        base_ms: z.number().int().positive().default(1000),
        /** No single wait is longer than this. */
        max_ms: z.number().int().positive().default(60_000),
      })
      .strict()
      .prefault({}),
    request_timeout_ms: z.number().int().positive().default(10_000),
    /**
     * With a shared (Redis) queue: how long a node holds a request before another may take it over; above
     * `request_timeout_ms`.
     */
    queue_lease_ms: z.number().int().positive().default(30_000),
    max_queued_per_app: z.number().int().positive().default(10_000),
    concurrency: z.number().int().positive().default(32),
  })
  .strict()
  .refine((settings) => settings.request_timeout_ms < settings.queue_lease_ms, {
    path: ['request_timeout_ms'],
    message: 'must be below queue_lease_ms (a request must end before another node may take it over)',
  });

/** One webhook as written in the config. */
export type WebhookConfigInput = z.input<typeof webhookSchema>;
/** One validated webhook. */
export type WebhookConfig = z.output<typeof webhookSchema>;
/** Validated batching settings (snake_case, as in the config). */
export type WebhookBatchingConfig = z.output<typeof webhookBatchingSchema>;
/** Validated server-wide delivery settings (snake_case, as in the config). */
export type WebhookSettingsConfig = z.output<typeof webhookSettingsSchema>;

function issueLines(issues: readonly z.core.$ZodIssue[], root: string): string[] {
  return issues.map((issue) => {
    const path = [root, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${path}: ${issue.message}`;
  });
}

function parseJson(text: string, name: string): Result<unknown, string[]> {
  try {
    return ok(JSON.parse(text));
  } catch (error) {
    return fail([`${name}: is not valid JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
}

/**
 * Parses a webhook list given as a JSON string (e.g. an environment variable), naming every problem with
 * `name` and its key path.
 * @example
 * ```ts
 * const list = parseWebhookList('[{"url":"https://example.com/hook","event_types":["channel_occupied"]}]', 'REALTIME_APP_WEBHOOKS');
 * if (!list.ok) throw new Error(list.error.join('\n'));
 * ```
 */
export function parseWebhookList(json: string, name: string): Result<WebhookConfig[], string[]> {
  const parsed = parseJson(json, name);
  if (!parsed.ok) return parsed;
  const result = webhookListSchema.safeParse(parsed.value);
  return result.success ? ok(result.data) : fail(issueLines(result.error.issues, name));
}

/** The webhooks found in the environment by {@link parseWebhooksEnv}. */
export interface WebhooksFromEnv {
  /** `REALTIME_APP_WEBHOOKS`: the webhooks of the app the `REALTIME_APP_*` variables describe, if set. */
  readonly app?: WebhookConfig[];
  /** `REALTIME_WEBHOOKS`: webhook lists by app id. */
  readonly byApp: Readonly<Record<string, WebhookConfig[]>>;
}

const byAppSchema = z.record(z.string().min(1), webhookListSchema);

/**
 * Reads webhooks from environment variables (the app passes its environment; packages never read it):
 * `REALTIME_APP_WEBHOOKS` holds a JSON array for the app that `REALTIME_APP_*` configures, and
 * `REALTIME_WEBHOOKS` a JSON object of arrays by app id. Every problem names the variable and key path.
 * @example
 * ```ts
 * const env = parseWebhooksEnv({ REALTIME_WEBHOOKS: '{"app-1":[{"url":"http://127.0.0.1:3000/hook","event_types":["member_added"]}]}' });
 * ```
 */
export function parseWebhooksEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<WebhooksFromEnv, string[]> {
  const problems: string[] = [];
  let app: WebhookConfig[] | undefined;
  let byApp: Record<string, WebhookConfig[]> = {};
  const single = env.REALTIME_APP_WEBHOOKS;
  if (single !== undefined && single.trim() !== '') {
    const list = parseWebhookList(single, 'REALTIME_APP_WEBHOOKS');
    if (list.ok) app = list.value;
    else problems.push(...list.error);
  }
  const many = env.REALTIME_WEBHOOKS;
  if (many !== undefined && many.trim() !== '') {
    const parsed = parseJson(many, 'REALTIME_WEBHOOKS');
    if (parsed.ok) {
      const result = byAppSchema.safeParse(parsed.value);
      if (result.success) byApp = result.data;
      else problems.push(...issueLines(result.error.issues, 'REALTIME_WEBHOOKS'));
    } else {
      problems.push(...parsed.error);
    }
  }
  if (problems.length > 0) return fail(problems);
  return ok(app === undefined ? { byApp } : { app, byApp });
}
