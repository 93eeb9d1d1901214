import { postAuthorisation } from './authorise.js';
import type { LiveConnection, LiveHandlers } from './connection.js';

/** Where the hub is and how to get a subscriber token for the user's channel. */
export interface HubTarget {
  /** The hub's URL, conventionally `…/.well-known/mercure`. */
  readonly hubUrl: string;
  /** Answers `POST {channel_names: [...]}` with `{topics: [...], token}`. */
  readonly authEndpoint: string;
  readonly channel: string;
  /**
   * The headers that authenticate the authorisation request: `Authorization: Bearer <token>` for a host-signed
   * user token, or the page's CSRF token for a cookie session (the bell passes its own; none by default).
   */
  readonly authHeaders?: (() => Promise<Record<string, string>>) | undefined;
  /** Whether the authorisation request carries cookies (default `same-origin`). */
  readonly credentials?: RequestCredentials | undefined;
  readonly fetch?: typeof fetch | undefined;
  /** Waits between attempts after a refusal, doubling up to 60 s (default 2000 ms first). */
  readonly retryMs?: number | undefined;
}

interface HubGrant {
  readonly topics: string[];
  readonly token: string;
}

async function authorise(target: HubTarget): Promise<HubGrant> {
  const body = (await postAuthorisation(
    target,
    JSON.stringify({ channel_names: [target.channel] }),
    'hub authorisation',
  )) as Partial<HubGrant>;
  if (!Array.isArray(body.topics) || typeof body.token !== 'string') {
    throw new Error('the hub authorisation did not answer {topics, token}');
  }
  return { topics: body.topics.map(String), token: body.token };
}

/**
 * Subscribes to a Mercure-style hub over SSE: gets `{topics, token}` from the auth endpoint, opens an
 * EventSource on `hubUrl?topic=…&authorization=<token>`, and reads each update's data as
 * `{event, data, channel}`. When the hub closes the stream (a refused or expired token), it authorises again,
 * asking for the updates missed since the last event id.
 */
export function connectHub(target: HubTarget, handlers: LiveHandlers): LiveConnection {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let lastEventId: string | undefined;
  let delay = target.retryMs ?? 2000;

  const retry = () => {
    if (closed) return;
    handlers.onState('down');
    timer = setTimeout(open, delay);
    delay = Math.min(delay * 2, 60_000);
  };

  const open = async () => {
    handlers.onState('connecting');
    let grant: HubGrant;
    try {
      grant = await authorise(target);
    } catch (error) {
      handlers.onError(`Live updates are off: ${error instanceof Error ? error.message : String(error)}.`);
      retry();
      return;
    }
    if (closed) return;
    const url = new URL(target.hubUrl, globalThis.location?.href);
    for (const topic of grant.topics) url.searchParams.append('topic', topic);
    url.searchParams.set('authorization', grant.token);
    if (lastEventId !== undefined) url.searchParams.set('lastEventID', lastEventId);
    const stream = new EventSource(url.href);
    source = stream;
    stream.onopen = () => {
      delay = target.retryMs ?? 2000;
      handlers.onState('live');
    };
    stream.onmessage = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      let update: { event?: unknown; data?: unknown };
      try {
        update = JSON.parse(message.data) as typeof update;
      } catch {
        handlers.onError('Live updates: the hub sent an update that is not JSON.');
        return;
      }
      if (typeof update.event === 'string') handlers.onEvent(update.event, update.data);
    };
    stream.onerror = () => {
      // CONNECTING: the browser reconnects by itself (sending Last-Event-ID); CLOSED: the hub refused us.
      if (stream.readyState === EventSource.CLOSED) {
        stream.close();
        retry();
      } else {
        handlers.onState('down');
      }
    };
  };

  void open();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      source?.close();
    },
  };
}
