import { signWebhook } from '@herald/protocol-core';
import { RESERVED_HEADERS } from './config.js';
import { messageOf } from './internal/log-fields.js';
import type { WebhookApp, WebhookFetch } from './options.js';
import type { WebhookJob } from './queue.js';

/** What one request came to: the answer's status, or why there was none. */
export type SendResult = { readonly status: number } | { readonly failure: string };

/** Makes one request for a job, signed with the app's credentials as they are now. */
export type Sender = (job: WebhookJob, app: Pick<WebhookApp, 'key' | 'secret'>) => Promise<SendResult>;

/**
 * The headers of a request: the webhook's own, then Pusher's, with `X-Pusher-Signature` the HMAC-SHA256 of the
 * exact body with the app's secret (signed at send time, so a rotated secret signs the next attempt).
 */
export function signedHeaders(
  own: Readonly<Record<string, string>>,
  app: Pick<WebhookApp, 'key' | 'secret'>,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(own)) {
    // The config refuses these, but an app built by hand could still carry one: never let it stand in for ours.
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  headers['Content-Type'] = 'application/json';
  headers['X-Pusher-Key'] = app.key;
  headers['X-Pusher-Signature'] = signWebhook(app.secret, body);
  return headers;
}

/**
 * Creates a {@link Sender}: each request is aborted after `requestTimeoutMs`, or at once when `signal` aborts
 * (the dispatcher closing).
 */
export function createSender(options: {
  readonly fetch: WebhookFetch;
  readonly requestTimeoutMs: number;
  readonly signal: AbortSignal;
}): Sender {
  const { requestTimeoutMs, signal } = options;
  return async (job, app) => {
    const headers = signedHeaders(job.headers, app, job.body);
    // One controller per request (rather than AbortSignal.any): nothing stays attached to the long-lived signal.
    const request = new AbortController();
    const timer = setTimeout(
      () => request.abort(new Error(`no answer within ${requestTimeoutMs} ms`)),
      requestTimeoutMs,
    );
    const onStop = () => request.abort(new Error('dispatcher closed'));
    signal.addEventListener('abort', onStop, { once: true });
    try {
      const response = await options.fetch(job.url, {
        method: 'POST',
        headers,
        body: job.body,
        redirect: 'manual',
        signal: request.signal,
      });
      // Read (and discard) the answer so that the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      return { status: response.status };
    } catch (error) {
      return { failure: messageOf(error) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
    }
  };
}
