import { createHash } from 'node:crypto';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { canonicalJson } from './internal/http.js';
import type { StoreConnection } from './internal/store-connection.js';

/** What the send API answers a request with: kept whole for the retries of a keyed request. */
export interface SendAnswer {
  readonly status: ContentfulStatusCode;
  readonly body: object;
}

/** How a request with an idempotency key was dealt with. */
export type IdempotentSend =
  /** This request held the key and sent: its answer. */
  | { readonly kind: 'sent'; readonly answer: SendAnswer }
  /** A request with this key and body finished before: its answer, to replay. */
  | { readonly kind: 'replayed'; readonly answer: SendAnswer }
  /** A request with this key is still sending. */
  | { readonly kind: 'in_progress' }
  /** The key was used for a request with another body. */
  | { readonly kind: 'reused' };

/** Sends a keyed request at most once per key, remembering its answer for the retries. */
export interface SendIdempotency {
  /**
   * Runs `attempt` unless a request with `key` ran or is running. An `attempt` that throws has sent nothing,
   * so the key is let go and a retry may send; any answer it returns (a failure part way too) is kept.
   */
  once(key: string, request: unknown, attempt: () => Promise<SendAnswer>): Promise<IdempotentSend>;
}

// RFC 9110 token characters are too strict for UUIDs with braces; any visible ASCII up to 255 is accepted.
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Tells whether a header value can be an idempotency key: 1 to 255 visible ASCII characters. */
export function isIdempotencyKey(value: string): boolean {
  return IDEMPOTENCY_KEY.test(value);
}

type Claim =
  | { readonly state: 'claimed' }
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly answer: SendAnswer };

/**
 * Keeps the send API's idempotency keys in the store's database (`notification_idempotency_keys`): one row per
 * key, holding the answer once the send is done; keys older than `ttlMs` are forgotten.
 */
export function createSendIdempotency(connection: StoreConnection, ttlMs: number): SendIdempotency {
  const { db } = connection;

  const claim = async (key: string, fingerprint: string): Promise<Claim> => {
    await db
      .deleteFrom('notification_idempotency_keys')
      .where('created_at', '<', new Date(Date.now() - ttlMs))
      .execute();
    // Twice at most: a key released between the insert and the read is free again on the second turn.
    for (let attempt = 0; ; attempt++) {
      const inserted = await db
        .insertInto('notification_idempotency_keys')
        .values({ key, fingerprint, status: null, response: null })
        .onConflict((oc) => oc.column('key').doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted !== undefined) return { state: 'claimed' };
      const row = await db
        .selectFrom('notification_idempotency_keys')
        .select(['fingerprint', 'status', 'response'])
        .where('key', '=', key)
        .executeTakeFirst();
      if (row === undefined) {
        if (attempt === 0) continue;
        // Released again at once: someone is sending with this key right now.
        return { state: 'in_progress', fingerprint };
      }
      if (row.status === null) return { state: 'in_progress', fingerprint: row.fingerprint };
      return {
        state: 'completed',
        fingerprint: row.fingerprint,
        // Written by `complete` below from a SendAnswer: the status and JSON body it carried.
        answer: { status: row.status as ContentfulStatusCode, body: row.response as object },
      };
    }
  };

  const complete = async (key: string, answer: SendAnswer): Promise<void> => {
    await db
      .updateTable('notification_idempotency_keys')
      .set({ status: answer.status, response: JSON.stringify(answer.body) })
      .where('key', '=', key)
      .execute();
  };

  const release = async (key: string): Promise<void> => {
    await db.deleteFrom('notification_idempotency_keys').where('key', '=', key).execute();
  };

  return {
    async once(key, request, attempt) {
      const fingerprint = createHash('sha256').update(canonicalJson(request)).digest('hex');
      const claimed = await claim(key, fingerprint);
      if (claimed.state !== 'claimed' && claimed.fingerprint !== fingerprint) return { kind: 'reused' };
      if (claimed.state === 'in_progress') return { kind: 'in_progress' };
      if (claimed.state === 'completed') return { kind: 'replayed', answer: claimed.answer };
      let answer: SendAnswer;
      try {
        answer = await attempt();
      } catch (error) {
        // Nothing went out, so a retry with this key may send.
        await release(key);
        throw error;
      }
      // Kept even when it stopped part way: a retry must not send to those recipients again.
      await complete(key, answer);
      return { kind: 'sent', answer };
    },
  };
}
