import { isSealed, openWithoutKey, type SecretCipher, sealedKeyId } from '@herald/protocol-core';
import type { Selectable } from 'kysely';
import { NotificationError } from './errors.js';
import type { PushSubscriptionsTable } from './internal/schema.js';
import { type StoreConnection, storeConnectionOf } from './internal/store-connection.js';
import type { NotifiableKey } from './record.js';
import type { NotificationStore } from './store.js';

/** A browser's push subscription as `PushSubscription.toJSON()` gives it, plus what tells devices apart. */
export interface NewPushSubscription {
  /** The push service URL for this browser (RFC 8030 push resource). */
  readonly endpoint: string;
  /** The browser's P-256 public key and authentication secret, base64url (RFC 8291). */
  readonly keys: { readonly p256dh: string; readonly auth: string };
  /** When the push service ends the subscription, if it said. */
  readonly expiresAt?: Date | null | undefined;
  readonly userAgent?: string | null | undefined;
  /** A name the user or page gave the device ("Work laptop"). */
  readonly label?: string | null | undefined;
}

/** A stored push subscription: one device of one notifiable. */
export interface PushSubscriptionRecord {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
  readonly owner: NotifiableKey;
  readonly expiresAt: Date | null;
  readonly userAgent: string | null;
  readonly label: string | null;
  readonly createdAt: Date;
}

/** A VAPID key pair (RFC 8292) as base64url: the P-256 public point (65 bytes) and private scalar (32 bytes). */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** The push subscriptions of a store, and the VAPID keys kept with them. */
export interface PushSubscriptions {
  /**
   * Keeps a subscription for `owner`. The endpoint is unique: saving one another notifiable had moves it to
   * `owner` (the browser is now signed in as them), and saving it again updates its keys.
   */
  save(owner: NotifiableKey, subscription: NewPushSubscription): Promise<PushSubscriptionRecord>;
  /** Every device of `owner`, oldest first. */
  listFor(owner: NotifiableKey): Promise<PushSubscriptionRecord[]>;
  /** Removes one of `owner`'s subscriptions; false when `owner` has none with that endpoint. */
  remove(owner: NotifiableKey, endpoint: string): Promise<boolean>;
  /** Removes a subscription whoever owns it (the push service said it is gone); false when none was kept. */
  removeEndpoint(endpoint: string): Promise<boolean>;
  /**
   * The store's VAPID keys: the ones kept, else `generate()`'s, kept for every later call and restart. Two
   * services starting at once on one database agree on one pair. With a `cipher`, the private key is kept sealed
   * (one kept in plaintext is sealed on this call).
   *
   * @throws {NotificationError} `key_required` when the kept private key is sealed and no cipher was given,
   * `wrong_key` when the cipher's key does not open it.
   */
  vapidKeys(generate: () => VapidKeys | Promise<VapidKeys>): Promise<VapidKeys>;
}

/** Options of {@link createPushSubscriptions}. */
export interface PushSubscriptionsOptions {
  /**
   * Seals the VAPID private key at rest (AES-256-GCM: `createSecretCipher(parseStoreKey(text))` from
   * `@herald/protocol-core`). Without it the key is kept as it is, readable by whoever reads the database.
   */
  readonly cipher?: SecretCipher | undefined;
}

type Row = Selectable<PushSubscriptionsTable>;

/** The kept private key in plaintext, or why it cannot be opened (never the key itself). */
function openPrivateKey(stored: string, cipher: SecretCipher | undefined): string {
  const opened = cipher ? cipher.open(stored) : openWithoutKey(stored);
  if (opened.ok) return opened.value;
  const sealedWith = sealedKeyId(stored) ?? 'unknown';
  switch (opened.error) {
    case 'key_required':
      throw new NotificationError(
        'key_required',
        `the store's VAPID private key is sealed (key id ${sealedWith}); give the key it was sealed with`,
      );
    case 'wrong_key':
      throw new NotificationError(
        'wrong_key',
        `the store's VAPID private key is sealed with key id ${sealedWith}; the key given (key id ${cipher?.keyId}) does not open it`,
      );
    default:
      throw new NotificationError(
        'store_failed',
        "the store's VAPID private key is not a readable sealed value",
      );
  }
}

function recordOf(row: Row): PushSubscriptionRecord {
  return {
    endpoint: row.endpoint,
    keys: { p256dh: row.p256dh, auth: row.auth },
    owner: { type: row.notifiable_type, id: row.notifiable_id },
    expiresAt: row.expires_at ? new Date(row.expires_at) : null,
    userAgent: row.user_agent,
    label: row.label,
    createdAt: new Date(row.created_at),
  };
}

function queriesOf(connection: StoreConnection, cipher: SecretCipher | undefined): PushSubscriptions {
  const { db } = connection;
  const table = 'notification_push_subscriptions' as const;
  return {
    async save(owner, subscription) {
      const now = new Date();
      const values = {
        notifiable_type: owner.type,
        notifiable_id: owner.id,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
        user_agent: subscription.userAgent?.slice(0, 512) ?? null,
        label: subscription.label ?? null,
        expires_at: subscription.expiresAt ?? null,
        updated_at: now,
      };
      const row = await db
        .insertInto(table)
        .values({ endpoint: subscription.endpoint, ...values, created_at: now })
        .onConflict((conflict) => conflict.column('endpoint').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      return recordOf(row);
    },
    async listFor(owner) {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .orderBy('created_at')
        .execute();
      return rows.map(recordOf);
    },
    async remove(owner, endpoint) {
      const result = await db
        .deleteFrom(table)
        .where('endpoint', '=', endpoint)
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async removeEndpoint(endpoint) {
      const result = await db.deleteFrom(table).where('endpoint', '=', endpoint).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async vapidKeys(generate) {
      const keysTable = 'notification_vapid_keys' as const;
      const read = () => db.selectFrom(keysTable).select(['public_key', 'private_key']).where('id', '=', 1);
      let row = await read().executeTakeFirst();
      if (!row) {
        const fresh = await generate();
        // Whoever inserts first wins; the loser reads the winner's pair.
        await db
          .insertInto(keysTable)
          .values({
            id: 1,
            public_key: fresh.publicKey,
            private_key: cipher ? cipher.seal(fresh.privateKey) : fresh.privateKey,
          })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .execute();
        row = await read().executeTakeFirstOrThrow();
      }
      const privateKey = openPrivateKey(row.private_key, cipher);
      if (cipher && !isSealed(row.private_key)) {
        // Kept before a key was configured: sealed now, unless another service sealed it first.
        await db
          .updateTable(keysTable)
          .set({ private_key: cipher.seal(privateKey) })
          .where('id', '=', 1)
          .where('private_key', '=', row.private_key)
          .execute();
      }
      return { publicKey: row.public_key, privateKey };
    },
  };
}

/** Turns a database failure into the package's `store_failed`. */
function guarded(queries: PushSubscriptions): PushSubscriptions {
  const wrap =
    <A extends unknown[], R>(what: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (cause) {
        // The package's own errors (a sealed key that cannot be opened) say more than `store_failed` would.
        if (cause instanceof NotificationError) throw cause;
        throw new NotificationError('store_failed', `${what} failed`, { cause });
      }
    };
  return {
    save: wrap('saving a push subscription', queries.save),
    listFor: wrap('reading push subscriptions', queries.listFor),
    remove: wrap('removing a push subscription', queries.remove),
    removeEndpoint: wrap('removing a push subscription', queries.removeEndpoint),
    vapidKeys: wrap('keeping the VAPID keys', queries.vapidKeys),
  };
}

/**
 * The Web Push subscriptions kept in a notification store (table `notification_push_subscriptions`), one per
 * browser, and the store's VAPID keys.
 *
 * @throws {NotificationError} `invalid_options` when `store` was not made by `createNotificationStore`; each
 * method throws `store_failed` when the database fails.
 * @example
 * const subscriptions = createPushSubscriptions(store, { cipher: createSecretCipher(key) });
 * const keys = await subscriptions.vapidKeys(() => webPush.generateVAPIDKeys());
 */
export function createPushSubscriptions(
  store: NotificationStore,
  options: PushSubscriptionsOptions = {},
): PushSubscriptions {
  const connection = storeConnectionOf(store);
  if (connection === undefined) {
    throw new NotificationError(
      'invalid_options',
      'push subscriptions are kept in a store made by createNotificationStore',
    );
  }
  return guarded(queriesOf(connection, options.cipher));
}
