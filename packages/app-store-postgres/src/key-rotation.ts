import type { SecretCipher } from '@herald/protocol-core';
import type { TransactionQuery } from './connection.js';
import { AppStorePostgresError } from './errors.js';
import type { Row } from './row.js';
import { hasPlaintext, keyIdsOf, type RowOpenProblem, resealRow } from './sealed-row.js';

/** Runs statements in one transaction under the store's lock (the connection's `transaction`). */
export type InTransaction = <T>(work: (query: TransactionQuery) => Promise<T>) => Promise<T>;

/** Says what a key (or no key) cannot open in a row, naming the app and the key ids, never a secret. */
export function describeOpenProblem(
  problem: RowOpenProblem,
  row: Readonly<Row> | undefined,
  cipher: SecretCipher | undefined,
): string {
  const where = `app "${problem.appId}": ${problem.column}`;
  switch (problem.problem) {
    case 'key_required':
      return `${where} is encrypted and no app store key was given`;
    case 'wrong_key': {
      const sealedWith = [...new Set(row ? keyIdsOf(row) : [])];
      const given = cipher?.keyId ?? 'none';
      if (sealedWith.length === 1 && sealedWith[0] === given) {
        return `${where} was altered or damaged: its AES-GCM authentication tag does not verify under the key given (key id ${given})`;
      }
      return `${where} was encrypted with another key (key id ${sealedWith.join(', ') || 'unknown'}) than the one given (key id ${given}): its AES-GCM authentication tag does not verify`;
    }
    case 'corrupt':
      return `${where} holds a value that starts like an encrypted secret but is not one`;
  }
}

function refusal(
  problem: RowOpenProblem,
  row: Readonly<Row>,
  cipher: SecretCipher | undefined,
): AppStorePostgresError {
  const code = problem.problem === 'corrupt' ? 'invalid_app' : problem.problem;
  return new AppStorePostgresError(code, describeOpenProblem(problem, row, cipher));
}

/**
 * Re-writes the secrets of every row `select` picks, opened with `from` and sealed with `to`, in one transaction
 * with the rows locked: a row `from` cannot open rolls everything back. Returns how many rows were written.
 */
async function reseal(
  inTransaction: InTransaction,
  options: {
    readonly table: string;
    readonly from: SecretCipher | undefined;
    readonly to: SecretCipher;
    readonly select: (row: Readonly<Row>) => boolean;
  },
): Promise<number> {
  const { table, from, to } = options;
  return inTransaction(async (query) => {
    const rows = await query(`SELECT id, secret, previous_secrets FROM ${table} ORDER BY id FOR UPDATE`);
    let written = 0;
    for (const row of rows) {
      if (!options.select(row)) continue;
      const sealed = resealRow(row, from, to);
      if (!sealed.ok) throw refusal(sealed.error, row, from);
      await query(`UPDATE ${table} SET secret = $2, previous_secrets = $3::jsonb WHERE id = $1`, [
        row.id,
        sealed.value.secret,
        JSON.stringify(sealed.value.previous_secrets ?? []),
      ]);
      written += 1;
    }
    return written;
  });
}

/**
 * Encrypts every secret still stored in plaintext with `cipher` (the first start with a key). Nodes starting
 * together take turns on the lock; the later one finds nothing left to do. Returns how many rows were written.
 * @throws {AppStorePostgresError} `wrong_key` when a row also holds secrets sealed by another key.
 */
export function sealPlaintextRows(
  inTransaction: InTransaction,
  table: string,
  cipher: SecretCipher,
): Promise<number> {
  return reseal(inTransaction, { table, from: cipher, to: cipher, select: hasPlaintext });
}

/**
 * Re-encrypts every row from the key `from` (or from plaintext, without one) to `to`, in one transaction.
 * @throws {AppStorePostgresError} `wrong_key` or `key_required` naming the first row `from` cannot open; nothing
 * is written then.
 */
export function rekeyRows(
  inTransaction: InTransaction,
  table: string,
  keys: { readonly from: SecretCipher | undefined; readonly to: SecretCipher },
): Promise<number> {
  return reseal(inTransaction, { table, ...keys, select: () => true });
}
