import { notificationChannelName } from './broadcaster.js';
import { NotificationError } from './errors.js';
import { realtimeRest } from './internal/realtime-rest.js';
import type { NotifiableKey } from './record.js';

/** Tells whether a recipient has a bell open right now. */
export interface RecipientPresence {
  /** @throws {NotificationError} `presence_failed` when it cannot be told (the caller then treats them as away). */
  isPresent(owner: NotifiableKey): Promise<boolean>;
}

/** Options of {@link createRealtimePresence}: the real-time app the bells connect to. */
export interface RealtimePresenceOptions {
  /** The server's base URL, with its `path` prefix if it has one. */
  readonly url: string;
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
  /** The channel a recipient's bell subscribes to (default `private-{type}.{id}`, where the bell listens). */
  readonly channelFor?: ((owner: NotifiableKey) => string) | undefined;
  /** Give up on a call after this long (default 5000 ms). */
  readonly timeoutMs?: number | undefined;
  readonly fetch?: typeof fetch | undefined;
}

/**
 * Asks the real-time server whether a recipient's bell is connected: a signed
 * `GET /apps/{id}/channels/{name}` on the private channel every open bell subscribes to, `occupied` meaning
 * at least one bell (any tab, any device) is there. One call per away delivery when its time comes, never per
 * send; across a cluster the server answers for every node.
 *
 * @example
 * const presence = createRealtimePresence({ url: 'http://127.0.0.1:8080', appId: 'app', key: 'key', secret: 'secret' });
 * const open = await presence.isPresent({ type: 'User', id: '42' });
 */
export function createRealtimePresence(options: RealtimePresenceOptions): RecipientPresence {
  const rest = realtimeRest(options);
  const doFetch = options.fetch ?? fetch;
  const channelFor = options.channelFor ?? notificationChannelName;
  return {
    async isPresent(owner) {
      const target = rest.signedUrl(
        'GET',
        `${rest.appPath}/channels/${encodeURIComponent(channelFor(owner))}`,
      );
      let response: Response;
      try {
        response = await doFetch(target, { signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
      } catch (cause) {
        throw new NotificationError(
          'presence_failed',
          `the real-time server at ${rest.base.origin} could not be reached`,
          { cause },
        );
      }
      const text = await response.text();
      if (!response.ok) {
        throw new NotificationError(
          'presence_failed',
          `the real-time server answered ${response.status}: ${text.slice(0, 200)}`,
        );
      }
      try {
        return (JSON.parse(text) as { occupied?: unknown }).occupied === true;
      } catch (cause) {
        throw new NotificationError('presence_failed', 'the real-time server answered something not JSON', {
          cause,
        });
      }
    },
  };
}
