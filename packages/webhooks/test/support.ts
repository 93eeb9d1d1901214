import Pusher from 'pusher';
import type { LogFields, Logger, WebhookApp, WebhookConfig, WebhookEvent } from '../src/index.js';
import type { ReceivedRequest } from '../src/testing.js';

export const APP_ID = 'app-1';
export const APP = { key: 'app-key', secret: 'app-secret-do-not-log' } as const;

/** An app with the given webhooks, in the shape the dispatcher looks up. */
export const appWith = (webhooks: WebhookConfig[], extra: Partial<WebhookApp> = {}): WebhookApp => ({
  ...APP,
  webhooks,
  ...extra,
});

/** The official SDK's verdict on one request, and the events it read. */
export function verify(request: ReceivedRequest, app: { key: string; secret: string } = APP) {
  const pusher = new Pusher({ appId: APP_ID, key: app.key, secret: app.secret, host: '127.0.0.1' });
  const webhook = pusher.webhook({ headers: request.headers, rawBody: request.rawBody });
  const valid = webhook.isValid();
  return { valid, events: valid ? (webhook.getEvents() as WebhookEvent[]) : [] };
}

/** The events of every request answered 2xx, in the order they were answered; each must pass the SDK's check. */
export function acceptedEvents(
  requests: readonly ReceivedRequest[],
  app: { key: string; secret: string } = APP,
): WebhookEvent[] {
  return requests
    .filter((request) => request.status !== undefined && request.status >= 200 && request.status < 300)
    .flatMap((request) => {
      const { valid, events } = verify(request, app);
      if (!valid) throw new Error(`the pusher SDK refused a request: ${request.rawBody}`);
      return events;
    });
}

export interface LogLine {
  readonly level: keyof Logger;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/** A logger that keeps every line. */
export function recordingLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
