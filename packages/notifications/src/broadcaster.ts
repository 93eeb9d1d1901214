import { NotificationError } from './errors.js';
import { realtimeRest } from './internal/realtime-rest.js';
import type { NotifiableKey } from './record.js';

/** Where Herald's real-time server (or any Pusher-compatible one) takes REST calls, and with which app. */
export interface BroadcasterOptions {
  /** The server's base URL, with its `path` prefix if it has one, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
  /** Give up on a call after this long (default 5000 ms). */
  readonly timeoutMs?: number | undefined;
  /** The fetch to use (the global one by default). */
  readonly fetch?: typeof fetch | undefined;
}

/** A change to stored notifications that other tabs of the same user should follow. */
export type NotificationChange =
  | {
      readonly event: 'notification.marked-read';
      readonly data: { notification_id: string; unread_count: number };
    }
  | {
      readonly event: 'notification.marked-all-read';
      readonly data: { marked_count: number; unread_count: number };
    }
  | {
      readonly event: 'notification.deleted';
      readonly data: { notification_id: string; unread_count: number };
    }
  | {
      readonly event: 'notification.deleted-all';
      readonly data: { deleted_count: number; unread_count: number };
    }
  | {
      /** Seen, archived, unarchived, "archive all read" or snoozed: other tabs load their list and counts again. */
      readonly event: 'notification.inbox-changed';
      readonly data: InboxChange;
    };

/** What changed in a user's inbox states, as `notification.inbox-changed` carries it. */
export interface InboxChange {
  readonly change: 'seen' | 'archived' | 'unarchived' | 'archived-all-read' | 'snoozed';
  /** The notifications changed (empty for "archive all read", which names none). */
  readonly notification_ids: readonly string[];
  readonly unread_count: number;
}

/** One event on one channel, as a batch carries it. */
export interface BroadcastEvent {
  readonly channel: string;
  readonly event: string;
  readonly data: unknown;
}

/** Publishes notification events on users' private channels through the real-time REST API. */
export interface NotificationBroadcaster {
  /** Triggers one event on some channels. @throws {NotificationError} `send_failed` when the server refuses or cannot be reached. */
  publish(channels: readonly string[], event: string, data: unknown): Promise<void>;
  /**
   * Triggers several events in one call (`POST /apps/{id}/batch_events`); the server's batch limit is 10 by
   * default. @throws {NotificationError} `send_failed` as `publish`, for the whole batch.
   */
  publishBatch(events: readonly BroadcastEvent[]): Promise<void>;
  /** Publishes a change on the notifiable's private channel. @throws {NotificationError} `send_failed` as `publish`. */
  publishChange(owner: NotifiableKey, change: NotificationChange): Promise<void>;
}

/** The private channel a notifiable's notifications are published on: `private-{type}.{id}`. */
export function notificationChannelName(owner: NotifiableKey): string {
  return `private-${owner.type}.${owner.id}`;
}

/**
 * Creates a broadcaster that makes signed REST calls (`POST /apps/{id}/events`) to the real-time server.
 *
 * @example
 * const broadcaster = createBroadcaster({ url: 'http://127.0.0.1:8080', appId: 'app', key: 'k', secret: 's' });
 */
export function createBroadcaster(options: BroadcasterOptions): NotificationBroadcaster {
  const rest = realtimeRest(options);
  const { base, appPath } = rest;
  const doFetch = options.fetch ?? fetch;

  const post = async (path: string, body: string): Promise<void> => {
    const target = rest.signedUrl('POST', path, body);
    let response: Response;
    try {
      response = await doFetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
    } catch (cause) {
      throw new NotificationError(
        'send_failed',
        `the real-time server at ${base.origin} could not be reached`,
        {
          cause,
          channel: 'broadcast',
        },
      );
    }
    if (!response.ok) {
      const text = (await response.text()).slice(0, 500);
      throw new NotificationError(
        'send_failed',
        `the real-time server answered ${response.status}: ${text}`,
        {
          channel: 'broadcast',
        },
      );
    }
    await response.body?.cancel();
  };

  const publish = (channels: readonly string[], event: string, data: unknown): Promise<void> =>
    post(`${appPath}/events`, JSON.stringify({ name: event, channels, data: JSON.stringify(data) }));

  const publishBatch = (events: readonly BroadcastEvent[]): Promise<void> =>
    post(
      `${appPath}/batch_events`,
      JSON.stringify({
        batch: events.map((e) => ({ name: e.event, channel: e.channel, data: JSON.stringify(e.data) })),
      }),
    );

  return {
    publish,
    publishBatch,
    publishChange: (owner, change) => publish([notificationChannelName(owner)], change.event, change.data),
  };
}
