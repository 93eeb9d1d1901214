/**
 * A TEST DOUBLE of a Rocket.Chat server's incoming-webhook endpoint, on loopback. It is not Rocket.Chat
 * (that needs a Meteor bundle and MongoDB, which these machines cannot run); it replays the rules
 * Rocket.Chat documents and implements for incoming webhooks, as summarised in
 * shared/reference/notifications.md §3:
 *
 * - Routes `POST /hooks/:id/:token` and the legacy `/hooks/:id/:userId/:token`; the token is URL-decoded.
 *   An unknown id or token answers 404 `{success:false, error:"Invalid integration id or token provided."}`.
 * - A disabled hook answers 503 `{success:false, error:"Service Unavailable"}`.
 * - The body is JSON, or a form with one `payload=<json>` field; a body that does not parse answers 400.
 * - `channel` (or `roomId`) in the body is refused with 400 unless the hook allows overriding the
 *   destination. `#name` must be a room, `@name` a user, else 400 `invalid-channel`; a private room the
 *   hook's bot is not in answers 400 `error-not-allowed`.
 * - Attachments: URL keys must be absolute URLs ("Invalid href value provided"); every field needs a
 *   title and a value ("Invalid attachment field, title and value is required"); the typed keys
 *   (`color`, `text`, `title`, `author_name` strings, `ts` string or number, `collapsed` boolean) are
 *   checked, and a wrong type answers 400.
 * - A per-hook rate limit answers 429 `{success:false, error:"Error, too many requests…"}` with
 *   `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix time in milliseconds, as
 *   Rocket.Chat sends it).
 * - Success answers 200 `{"success":true}`, and the double records the exact body it received.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DoubleHook {
  readonly id: string;
  readonly token: string;
  readonly enabled?: boolean;
  /** Rocket.Chat's `overrideDestinationChannelEnabled`. */
  readonly overrideDestinationChannel?: boolean;
  /** At most `limit` posts per `windowMs`; more answer 429. */
  readonly rateLimit?: { readonly limit: number; readonly windowMs: number };
}

export interface ReceivedPost {
  readonly hookId: string;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

export interface RocketChatDouble {
  readonly url: string;
  /** The webhook URL of a hook. */
  hookUrl(id: string): string;
  /** The posts that were accepted (200), in order. */
  readonly received: ReceivedPost[];
  /** Every request that reached a /hooks route, accepted or not. */
  readonly attempts: { hookId: string | undefined; status: number; at: number }[];
  /** Forgets what was received and every rate-limit window. */
  reset(): void;
  close(): Promise<void>;
}

const ROOMS = new Map([
  ['general', { private: false, botIsMember: true }],
  ['ops', { private: false, botIsMember: true }],
  ['secret', { private: true, botIsMember: false }],
]);
const USERS = new Set(['alice', 'bob']);
const URL_KEYS = [
  'thumb_url',
  'message_link',
  'author_link',
  'author_icon',
  'title_link',
  'image_url',
  'audio_url',
  'video_url',
];
const STRING_KEYS = ['color', 'text', 'title', 'author_name', 'button_alignment'];

class Refusal extends Error {}

function isFullUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol !== 'javascript:';
  } catch {
    // Relative or not a URL: Rocket.Chat refuses it, so the double does.
    return false;
  }
}

function checkAttachments(attachments: unknown): void {
  if (!Array.isArray(attachments)) return; // Rocket.Chat logs and drops a non-array.
  for (const attachment of attachments as Record<string, unknown>[]) {
    for (const key of STRING_KEYS) {
      if (attachment[key] !== undefined && typeof attachment[key] !== 'string') {
        throw new Refusal(`Match error: Expected string in field ${key}`);
      }
    }
    if (attachment.ts !== undefined && !['string', 'number'].includes(typeof attachment.ts)) {
      throw new Refusal('Match error: Expected string or number in field ts');
    }
    if (attachment.collapsed !== undefined && typeof attachment.collapsed !== 'boolean') {
      throw new Refusal('Match error: Expected boolean in field collapsed');
    }
    for (const key of URL_KEYS) {
      if (attachment[key] !== undefined && !isFullUrl(attachment[key])) {
        throw new Refusal('Invalid href value provided');
      }
    }
    if (attachment.fields !== undefined) {
      for (const field of attachment.fields as Record<string, unknown>[]) {
        if (!field.title || !field.value) {
          throw new Refusal('Invalid attachment field, title and value is required');
        }
      }
    }
  }
}

function checkDestination(channel: unknown): void {
  for (const name of Array.isArray(channel) ? channel : [channel]) {
    if (typeof name !== 'string') throw new Refusal('invalid-channel');
    if (name.startsWith('#')) {
      const room = ROOMS.get(name.slice(1));
      if (!room) throw new Refusal('invalid-channel');
      if (room.private && !room.botIsMember) throw new Refusal('error-not-allowed');
    } else if (name.startsWith('@')) {
      if (!USERS.has(name.slice(1))) throw new Refusal('invalid-channel');
    } else if (!ROOMS.has(name)) {
      throw new Refusal('invalid-channel');
    }
  }
}

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (raw === '') return {};
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    return JSON.parse(payload ?? raw);
  }
  return JSON.parse(raw);
}

/** Starts the double on a random loopback port with the given hooks. */
export async function startRocketChatDouble(hooks: readonly DoubleHook[]): Promise<RocketChatDouble> {
  const received: ReceivedPost[] = [];
  const attempts: RocketChatDouble['attempts'] = [];
  const windows = new Map<string, { start: number; count: number }>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        attempts.push({ hookId, status, at: Date.now() });
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const parts = (req.url ?? '').split('?')[0]?.split('/').filter(Boolean) ?? [];
      const hookId = parts[0] === 'hooks' ? parts[1] : undefined;
      if (parts[0] !== 'hooks' || (parts.length !== 3 && parts.length !== 4) || req.method !== 'POST') {
        answer(404, { success: false, error: 'Resource not found' });
        return;
      }
      const token = decodeURIComponent(parts[parts.length - 1] ?? '');
      const hook = hooks.find((h) => h.id === hookId && h.token === token);
      if (!hook) {
        answer(404, { success: false, error: 'Invalid integration id or token provided.' });
        return;
      }
      if (hook.enabled === false) {
        answer(503, { success: false, error: 'Service Unavailable' });
        return;
      }
      if (hook.rateLimit) {
        const now = Date.now();
        const window = windows.get(hook.id);
        const current =
          window && now - window.start < hook.rateLimit.windowMs ? window : { start: now, count: 0 };
        current.count += 1;
        windows.set(hook.id, current);
        const reset = current.start + hook.rateLimit.windowMs;
        const headers = {
          'X-RateLimit-Limit': String(hook.rateLimit.limit),
          'X-RateLimit-Remaining': String(Math.max(0, hook.rateLimit.limit - current.count)),
          'X-RateLimit-Reset': String(reset),
        };
        if (current.count > hook.rateLimit.limit) {
          const seconds = Math.ceil((reset - now) / 1000);
          answer(
            429,
            {
              success: false,
              error: `Error, too many requests. Please slow down. You must wait ${seconds} seconds before trying this endpoint again.`,
            },
            headers,
          );
          return;
        }
        res.setHeader('X-RateLimit-Reset', headers['X-RateLimit-Reset']);
      }
      try {
        const body = parseBody(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']) as Record<
          string,
          unknown
        >;
        const channel = body.channel ?? body.roomId;
        if (channel !== undefined) {
          if (!hook.overrideDestinationChannel) {
            throw new Refusal('overriding destination channel is disabled for this integration');
          }
          checkDestination(channel);
        }
        checkAttachments(body.attachments);
        received.push({ hookId: hook.id, body, headers: req.headers });
        answer(200, { success: true });
      } catch (error) {
        answer(400, { success: false, error: (error as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hookUrl(id) {
      const hook = hooks.find((h) => h.id === id);
      if (!hook) throw new Error(`no hook ${id} in the double`);
      return `${url}/hooks/${hook.id}/${encodeURIComponent(hook.token)}`;
    },
    received,
    attempts,
    reset() {
      received.length = 0;
      attempts.length = 0;
      windows.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
