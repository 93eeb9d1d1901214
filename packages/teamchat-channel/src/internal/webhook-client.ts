import type { NotificationLogger } from '@herald/notifications';
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import type { TeamChatConfig } from '../config.js';
import { CouldNotSendNotification, type TeamChatResponse } from '../errors.js';
import type { TeamChatPayload } from '../payload.js';
import { retryAfterMs } from './retry-after.js';
import { safeOrigin } from './url.js';

const USER_AGENT = 'herald-teamchat-channel';

/** Posts webhook bodies for one channel over its own undici dispatcher. */
export interface WebhookClient {
  post(payload: TeamChatPayload): Promise<TeamChatResponse>;
  close(): Promise<void>;
}

function createDispatcher(config: TeamChatConfig): Dispatcher {
  const tls = { timeout: config.connect_timeout * 1000, rejectUnauthorized: config.verify };
  if (config.proxy) {
    // proxyTls applies to the connection to the proxy, requestTls to the target through the tunnel.
    return new ProxyAgent({ uri: config.proxy, proxyTls: tls, requestTls: tls });
  }
  return new Agent({ connect: tls });
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseBody(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text);
  } catch {
    // Older Rocket.Chat answers some errors (a disabled hook's 503) as plain text: keep the text.
    return text;
  }
}

/** The `error` Rocket.Chat puts in `{success:false, error}`, or a short piece of a text body. */
function describeBody(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const error = (body as { error: unknown }).error;
    return typeof error === 'string' ? error : JSON.stringify(error);
  }
  if (typeof body === 'string') return body.length > 200 ? `${body.slice(0, 200)}...` : body;
  return JSON.stringify(body);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Creates the HTTP side of a channel; the webhook URL stays inside and is never put in a message. */
export function createWebhookClient(
  name: string,
  config: TeamChatConfig,
  logger: NotificationLogger,
): WebhookClient {
  const origin = safeOrigin(config.webhook);
  const secretPath = new URL(config.webhook).pathname;
  // undici's own messages name hosts and ports, not paths; this is a second guard for the token.
  const scrub = (text: string) =>
    secretPath.length > 1 ? text.replaceAll(config.webhook, origin).replaceAll(secretPath, '/…') : text;
  let dispatcher: Dispatcher | undefined;

  const once = async (body: string): Promise<TeamChatResponse> => {
    dispatcher ??= createDispatcher(config);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, config.timeout * 1000);
    try {
      const response = await request(config.webhook, {
        method: 'POST',
        dispatcher,
        signal: controller.signal,
        headers: {
          'user-agent': USER_AGENT,
          accept: 'application/json',
          ...config.headers,
          'content-type': 'application/json',
        },
        body,
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        body: parseBody(text),
        headers: flattenHeaders(response.headers),
      };
    } catch (error) {
      if (timedOut) {
        throw new CouldNotSendNotification(
          'timeout',
          `${name}: no answer from ${origin} within ${config.timeout}s`,
          { channel: name, cause: error },
        );
      }
      const code = (error as { code?: unknown }).code;
      if (code === 'UND_ERR_CONNECT_TIMEOUT') {
        throw new CouldNotSendNotification(
          'connect_timeout',
          `${name}: could not connect to ${origin} within ${config.connect_timeout}s`,
          { channel: name, cause: error },
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new CouldNotSendNotification(
        'request_failed',
        `${name}: request to ${origin} failed: ${scrub(detail)}`,
        { channel: name, cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async post(payload) {
      const body = JSON.stringify(payload);
      for (let attempt = 1; ; attempt++) {
        const response = await once(body);
        logger.debug('team-chat webhook answered', {
          channel: name,
          origin,
          status: response.status,
          attempt,
        });
        const wait = response.status === 429 ? retryAfterMs(response.headers) : undefined;
        if (response.status === 429 && attempt <= config.retries) {
          const delay = wait ?? 1000;
          if (delay <= config.retry_max_wait * 1000) {
            logger.warn('team-chat webhook rate limited, retrying', {
              channel: name,
              origin,
              attempt,
              waitMs: delay,
            });
            await sleep(delay);
            continue;
          }
        }
        if (response.status >= 200 && response.status < 300) return response;
        const message = `${name}: Rocket.Chat answered ${response.status}: ${scrub(describeBody(response.body))}`;
        if (!config.http_errors) {
          logger.warn(message, { channel: name, origin, status: response.status });
          return response;
        }
        throw new CouldNotSendNotification('http_error', message, {
          channel: name,
          response,
          retryAfterMs: wait,
        });
      }
    },
    async close() {
      const open = dispatcher;
      dispatcher = undefined;
      await open?.close();
    },
  };
}
