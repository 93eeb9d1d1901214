import {
  fail,
  isSealed,
  type OpenProblem,
  ok,
  openWithoutKey,
  type Result,
  type SecretCipher,
  sealedKeyId,
} from '@herald/protocol-core';
import { isObject } from './internal/is-object.js';
import type { Row } from './row.js';

// The two places a row holds secrets: `secret`, and each entry of `previous_secrets`. Every read of a row opens
// them here and every write seals them here, so no other module handles a sealed value.

/** A row whose secrets could not be opened: which app, which column, and why. */
export interface RowOpenProblem {
  readonly appId: string;
  readonly column: 'secret' | 'previous_secrets';
  readonly problem: OpenProblem;
}

/** Opens one stored value with the store's cipher, or without a key when the store has none. */
function openSecret(stored: string, cipher: SecretCipher | undefined): Result<string, OpenProblem> {
  return cipher ? cipher.open(stored) : openWithoutKey(stored);
}

/** Seals a secret for writing; without a cipher it is written as it is (a store without a key). */
export function sealSecret(plain: string, cipher: SecretCipher | undefined): string {
  return cipher ? cipher.seal(plain) : plain;
}

function appIdOf(row: Readonly<Row>): string {
  return typeof row.id === 'string' && row.id !== '' ? row.id : '(no id)';
}

/** Maps the `secret` of each well-formed `previous_secrets` entry; anything else is left for the parser to refuse. */
function mapPrevious(
  value: unknown,
  map: (stored: string) => Result<string, OpenProblem>,
): Result<unknown, OpenProblem> {
  if (!Array.isArray(value)) return ok(value);
  const entries: unknown[] = [];
  for (const entry of value) {
    if (!isObject(entry) || typeof entry.secret !== 'string') {
      entries.push(entry);
      continue;
    }
    const mapped = map(entry.secret);
    if (!mapped.ok) return mapped;
    entries.push({ ...entry, secret: mapped.value });
  }
  return ok(entries);
}

/** A row as read with its secrets in plaintext: what the column parser and the server see. */
export function openRow(row: Readonly<Row>, cipher: SecretCipher | undefined): Result<Row, RowOpenProblem> {
  const open = (stored: string) => openSecret(stored, cipher);
  let secret = row.secret;
  if (typeof secret === 'string') {
    const opened = open(secret);
    if (!opened.ok) return fail({ appId: appIdOf(row), column: 'secret', problem: opened.error });
    secret = opened.value;
  }
  const previous = mapPrevious(row.previous_secrets, open);
  if (!previous.ok) return fail({ appId: appIdOf(row), column: 'previous_secrets', problem: previous.error });
  return ok({ ...row, secret, previous_secrets: previous.value });
}

/** Every stored secret value of a row: its `secret` and those of its previous secrets. */
function storedSecrets(row: Readonly<Row>): string[] {
  const values = typeof row.secret === 'string' ? [row.secret] : [];
  if (Array.isArray(row.previous_secrets)) {
    for (const entry of row.previous_secrets) {
      if (isObject(entry) && typeof entry.secret === 'string') values.push(entry.secret);
    }
  }
  return values;
}

/** Whether any secret of the row is stored in plaintext. */
export function hasPlaintext(row: Readonly<Row>): boolean {
  return storedSecrets(row).some((value) => !isSealed(value));
}

/** The key ids a row's sealed values name (to say which key a store was sealed with). */
export function keyIdsOf(row: Readonly<Row>): string[] {
  return storedSecrets(row).flatMap((value) => sealedKeyId(value) ?? []);
}

/** The secret columns of a row opened with `from` and sealed again with `to`, ready for an UPDATE. */
export function resealRow(
  row: Readonly<Row>,
  from: SecretCipher | undefined,
  to: SecretCipher,
): Result<{ secret: string; previous_secrets: unknown }, RowOpenProblem> {
  const opened = openRow(row, from);
  if (!opened.ok) return opened;
  const { secret } = opened.value;
  if (typeof secret !== 'string') {
    return fail({ appId: appIdOf(row), column: 'secret', problem: 'corrupt' });
  }
  const previous = mapPrevious(opened.value.previous_secrets, (plain) => ok(to.seal(plain)));
  if (!previous.ok) return fail({ appId: appIdOf(row), column: 'previous_secrets', problem: previous.error });
  return ok({ secret: to.seal(secret), previous_secrets: previous.value });
}
