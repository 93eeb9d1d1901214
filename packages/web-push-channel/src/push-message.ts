import { collapseSummaryOf, type Delivery, type DeliveryItem, deliveryItemOf } from '@herald/notifications';

/** One notification as a push message is built from it. */
export type PushItem = DeliveryItem;

/**
 * What the service worker receives (as JSON) and shows with `showNotification`: `title`, `body`, the page to
 * open on click (`url`), a `tag` that replaces an earlier message with the same tag, and the notification ids.
 */
export interface PushMessage {
  readonly title: string;
  readonly body: string;
  readonly url?: string | undefined;
  readonly tag?: string | undefined;
  readonly icon?: string | undefined;
  readonly ids: readonly string[];
}

/** Builds the message of one notification. */
export type PushTemplate = (item: PushItem) => PushMessage;
/** Builds the message of several notifications to one person (a digest). */
export type PushDigestTemplate = (items: readonly PushItem[]) => PushMessage;

/**
 * The message of one notification: its title, its message as the body (with "Ada and 9 others" under it when it
 * stands for several), its `action_url` to open.
 */
export const defaultPushTemplate: PushTemplate = (item) => ({
  title: item.title,
  body: [item.message, collapseSummaryOf(item)].filter(Boolean).join('\n'),
  url: item.actionUrl,
  tag: item.id,
  ids: [item.id],
});

const DIGEST_LINES = 5;

/**
 * The message of a digest: "3 new notifications", the first titles one per line (then "and N more"), and the
 * link they share when all share one.
 */
export const defaultPushDigestTemplate: PushDigestTemplate = (items) => {
  const shown = items.slice(0, DIGEST_LINES).map((item) => item.title);
  const more = items.length - shown.length;
  const urls = new Set(items.map((item) => item.actionUrl));
  return {
    title: `${items.length} new notifications`,
    body: [...shown, ...(more > 0 ? [`and ${more} more`] : [])].join('\n'),
    url: urls.size === 1 ? [...urls][0] : undefined,
    tag: `digest-${items[0]?.id ?? ''}`,
    ids: items.map((item) => item.id),
  };
};

/** The item a template renders for one delivery (`toWebPush()` when the notification has it, else `toDatabase()`). */
export function pushItemOf(delivery: Delivery): PushItem {
  return deliveryItemOf(delivery, { channel: 'push', builder: 'toWebPush' });
}

// Push services accept 4096 bytes of encrypted payload; aes128gcm's header, padding delimiter and tag take 103.
const MAX_PAYLOAD_BYTES = 3993;

/** The message as the JSON payload, its body shortened (never the title or link) to fit a push. */
export function payloadOf(message: PushMessage): string {
  let body = message.body;
  for (;;) {
    const text = JSON.stringify({ ...message, body });
    if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES || body.length === 0) return text;
    body = `${body.slice(0, Math.max(0, Math.floor(body.length * 0.8) - 1))}…`;
    if (body === '…') body = '';
  }
}
