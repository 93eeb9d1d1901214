import type { StoredApp } from './columns.js';
import { isObject } from './internal/is-object.js';
import type { Logger } from './logger.js';
import type { Row } from './row.js';

/**
 * A row whose `previous_secrets` holds entries past their time: what it holds, and the entries still valid, both
 * as stored (sealed with a key), so dropping the expired ones never writes a secret back in plaintext.
 */
export interface ExpiredSecrets {
  readonly id: string;
  readonly stored: readonly unknown[];
  readonly kept: readonly unknown[];
}

/** The expired entries of a row just read, when it has any (`app` is the row as parsed: valid entries only). */
export function expiredSecretsOf(row: Readonly<Row>, app: StoredApp): ExpiredSecrets | undefined {
  const stored = row.previous_secrets;
  const valid = app.previous_secrets ?? [];
  if (!Array.isArray(stored) || stored.length === valid.length) return undefined;
  // The parse kept exactly the entries whose `until` is ahead; the same `until`s pick them out of the stored list.
  const untils = new Set(valid.map((entry) => entry.until));
  const kept = stored.filter(
    (entry) => isObject(entry) && typeof entry.until === 'string' && untils.has(Date.parse(entry.until)),
  );
  return { id: app.id, stored, kept };
}

/** Options of {@link createSecretExpiry}. */
export interface SecretExpiryOptions {
  /** The quoted app table. */
  readonly table: string;
  readonly logger: Logger;
  query(text: string, values: unknown[]): Promise<unknown>;
  /** Reads every app again (the watcher's re-read), so the server stops being handed an expired secret. */
  reread(): void;
}

/** What a watching store does about previous secrets that run out. */
export interface SecretExpiry {
  /** Re-reads everything just after the earliest previous secret of `apps` runs out. */
  schedule(apps: readonly StoredApp[]): void;
  /** Removes expired entries from their rows. */
  drop(rows: readonly ExpiredSecrets[]): Promise<void>;
  close(): void;
}

// setTimeout's longest wait; a grace period longer than that is woken early and scheduled again.
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Creates the secret expiry of a watching store. An expired previous secret is refused at check time already
 * (against the clock); the re-read hands the server the list without it, and dropping it from the row is
 * housekeeping.
 */
export function createSecretExpiry(options: SecretExpiryOptions): SecretExpiry {
  let timer: NodeJS.Timeout | undefined;

  return {
    schedule(apps) {
      if (timer) clearTimeout(timer);
      const untils = apps.flatMap((app) => (app.previous_secrets ?? []).map((entry) => entry.until));
      if (untils.length === 0) return;
      const wait = Math.max(0, Math.min(...untils) - Date.now()) + 50;
      timer = setTimeout(options.reread, Math.min(wait, LONGEST_TIMEOUT_MS));
      timer.unref();
    },

    // Only rows still as read are touched, so a rotation that happened meanwhile is never undone.
    async drop(rows) {
      for (const { id, stored, kept } of rows) {
        await options
          .query(
            `UPDATE ${options.table} SET previous_secrets = $2::jsonb WHERE id = $1 AND previous_secrets = $3::jsonb`,
            [id, JSON.stringify(kept), JSON.stringify(stored)],
          )
          .catch((error: unknown) =>
            options.logger.debug('dropping expired secrets failed', { scope: 'app_store', error }),
          );
      }
    },

    close() {
      if (timer) clearTimeout(timer);
    },
  };
}
