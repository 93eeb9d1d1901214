import { NotificationError } from './errors.js';
import { IDEMPOTENCY_KEY_HEADER, SEND_ROUTE, type SendRequest, type SendResult } from './send-api.js';

/** Options of {@link createNotificationClient}. */
export interface NotificationClientOptions {
  /** The notification service's base URL, e.g. `https://notifications.internal:8090`. */
  readonly url: string;
  /** The service's API secret (`NOTIFICATION_API_SECRET`). */
  readonly secret: string;
  /** The fetch to use (the global one by default). */
  readonly fetch?: typeof fetch | undefined;
  /** Give up on a request after this long (default 30,000 ms). */
  readonly timeoutMs?: number | undefined;
}

/** Per-call options of {@link NotificationClient.send}. */
export interface SendOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key and body sends nothing twice. */
  readonly idempotencyKey?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A typed client of the send API, for backends that notify users through a notification service. */
export interface NotificationClient {
  /**
   * Sends one notification to one or many users and answers what the service did.
   *
   * @throws {NotificationError} `request_failed` when the service answers an error (with its `status` and
   *   parsed `body`) or cannot be reached.
   */
  send(request: SendRequest, options?: SendOptions): Promise<SendResult>;
}

function errorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && 'message' in error
    ? String((error as { message: unknown }).message)
    : undefined;
}

/**
 * Creates a client of the notification service's send API (`POST /notification/send`).
 *
 * @example
 * const client = createNotificationClient({ url: 'http://127.0.0.1:8090', secret: process.env.NOTIFICATION_API_SECRET! });
 * const result = await client.send({ recipients: ['42'], type: 'InvoicePaid', data: { title: 'Invoice paid', message: 'Invoice #12 was paid' } });
 */
export function createNotificationClient(options: NotificationClientOptions): NotificationClient {
  let target: URL;
  try {
    target = new URL(SEND_ROUTE.slice(1), options.url.endsWith('/') ? options.url : `${options.url}/`);
  } catch (cause) {
    throw new NotificationError('invalid_options', `url must be an absolute URL, got "${options.url}"`, {
      cause,
    });
  }
  const doFetch = options.fetch ?? fetch;
  return {
    async send(request, sendOptions = {}) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${options.secret}`,
        'content-type': 'application/json',
        accept: 'application/json',
      };
      if (sendOptions.idempotencyKey !== undefined)
        headers[IDEMPOTENCY_KEY_HEADER] = sendOptions.idempotencyKey;
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      let response: Response;
      try {
        response = await doFetch(target, {
          method: 'POST',
          headers,
          body: JSON.stringify(request),
          signal: sendOptions.signal ? AbortSignal.any([sendOptions.signal, timeout]) : timeout,
        });
      } catch (cause) {
        throw new NotificationError(
          'request_failed',
          `the notification service at ${target.origin} could not be reached`,
          {
            cause,
          },
        );
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's error page, say): the error keeps the text as it came.
      }
      if (!response.ok) {
        throw new NotificationError(
          'request_failed',
          `the notification service answered ${response.status}: ${errorMessage(body) ?? text.slice(0, 200)}`,
          { status: response.status, body },
        );
      }
      return (body as { data: SendResult }).data;
    },
  };
}
