import { hmacHex, safeEqual } from '@herald/protocol-core';
import { type Context, Hono } from 'hono';
import { escapeHtml } from './bell.js';
import { NotificationError } from './errors.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import type { NotifiableKey } from './record.js';
import type { NotificationStore } from './store.js';

/** The route unsubscribe links point at: `GET` shows a button, `POST` (one click, RFC 8058) turns the channel off. */
export const UNSUBSCRIBE_ROUTE = '/notification/unsubscribe';

/** Options of {@link createUnsubscribeLinks} and {@link createUnsubscribeApi}. */
export interface UnsubscribeOptions {
  /** Signs the links (16 characters or more); keep it apart from other secrets. */
  readonly secret: string;
}

/** Makes signed links that turn one channel off for some notification types of one recipient. */
export interface UnsubscribeLinks {
  /** The link for `owner`, its `types` and `channel` (e.g. `email`), under `baseUrl`. */
  url(owner: NotifiableKey, types: readonly string[], channel: string): string;
}

/** What a signed link names. */
interface UnsubscribeTarget {
  readonly owner: NotifiableKey;
  readonly types: readonly string[];
  readonly channel: string;
}

function checkSecret(secret: string): void {
  if (secret.length < 16) {
    throw new NotificationError('invalid_options', 'the unsubscribe secret must be at least 16 characters');
  }
}

function signatureOf(secret: string, target: UnsubscribeTarget): string {
  return hmacHex(
    secret,
    JSON.stringify(['unsubscribe', target.owner.type, target.owner.id, [...target.types], target.channel]),
  );
}

/**
 * Creates signed unsubscribe links to {@link UNSUBSCRIBE_ROUTE} on `baseUrl` (the service's public URL).
 *
 * @throws {NotificationError} `invalid_options` for a secret shorter than 16 characters or a base that is not a URL.
 * @example
 * const links = createUnsubscribeLinks({ secret, baseUrl: 'https://notify.example' });
 * links.url({ type: 'User', id: '42' }, ['CommentReplied'], 'email');
 */
export function createUnsubscribeLinks(
  options: UnsubscribeOptions & { readonly baseUrl: string },
): UnsubscribeLinks {
  checkSecret(options.secret);
  let base: URL;
  try {
    base = new URL(
      UNSUBSCRIBE_ROUTE.slice(1),
      options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
    );
  } catch (cause) {
    throw new NotificationError(
      'invalid_options',
      `baseUrl must be an absolute URL, got "${options.baseUrl}"`,
      {
        cause,
      },
    );
  }
  return {
    url(owner, types, channel) {
      const link = new URL(base);
      link.searchParams.set('nt', owner.type);
      link.searchParams.set('id', owner.id);
      for (const type of types) link.searchParams.append('type', type);
      link.searchParams.set('ch', channel);
      link.searchParams.set('sig', signatureOf(options.secret, { owner, types, channel }));
      return link.href;
    },
  };
}

function targetOf(c: Context, secret: string): UnsubscribeTarget | undefined {
  const query = new URL(c.req.url).searchParams;
  const type = query.get('nt');
  const id = query.get('id');
  const channel = query.get('ch');
  const types = query.getAll('type');
  const sig = query.get('sig');
  if (!type || !id || !channel || types.length === 0 || !sig) return undefined;
  const target = { owner: { type, id }, types, channel };
  return safeEqual(sig, signatureOf(secret, target)) ? target : undefined;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/**
 * Creates the unsubscribe routes as a hono router. The signature is the only credential: `GET` answers a page
 * with a button (mail scanners that follow links change nothing), `POST` (the one-click unsubscribe mail clients
 * send, `List-Unsubscribe=One-Click`) turns the channel off for those types in the recipient's preferences.
 * A link that is not signed by `secret` answers 403 `invalid_signature`.
 *
 * @throws {NotificationError} `invalid_options` for a secret shorter than 16 characters.
 * @example
 * app.route('/', createUnsubscribeApi({ store, secret: process.env.UNSUBSCRIBE_SECRET! }));
 */
export function createUnsubscribeApi(
  options: UnsubscribeOptions & { readonly store: NotificationStore; readonly logger?: NotificationLogger },
): Hono {
  checkSecret(options.secret);
  const logger = options.logger ?? silentNotificationLogger;
  const app = new Hono();
  const refuse = (c: Context) =>
    c.json({ error: { code: 'invalid_signature', message: 'this unsubscribe link is not valid' } }, 403);

  app.get(UNSUBSCRIBE_ROUTE, (c) => {
    const target = targetOf(c, options.secret);
    if (!target) return refuse(c);
    const what = `${target.channel} for ${target.types.join(', ')}`;
    return c.html(
      page(
        'Unsubscribe',
        `<form method="post"><p>Stop ${escapeHtml(what)}?</p><button type="submit">Unsubscribe</button></form>`,
      ),
    );
  });

  app.post(UNSUBSCRIBE_ROUTE, async (c) => {
    const target = targetOf(c, options.secret);
    if (!target) return refuse(c);
    const current = await options.store.getPreferences(target.owner);
    const next: Record<string, Record<string, boolean>> = {};
    for (const [type, channels] of Object.entries(current)) next[type] = { ...channels };
    for (const type of target.types) next[type] = { ...next[type], [target.channel]: false };
    await options.store.setPreferences(target.owner, next);
    logger.info('unsubscribed', { owner: target.owner.id, channel: target.channel, types: target.types });
    return c.html(
      page(
        'Unsubscribed',
        `<p>You will get no more ${escapeHtml(target.channel)} for these notifications.</p>`,
      ),
    );
  });

  return app;
}
