import type { SecretCipher } from '@herald/protocol-core';
import {
  type AppFields,
  COLUMNS,
  type ColumnProblem,
  checkFields,
  parseApp,
  parseRow,
  type StoredApp,
} from './columns.js';
import { AppStorePostgresError } from './errors.js';
import { generateSecret } from './generate-secret.js';
import { describeOpenProblem } from './key-rotation.js';
import type { Row } from './row.js';
import { openRow, sealSecret } from './sealed-row.js';

/** What the store's `rotateSecret` did: the app as written, its new secret, and how long the old one lasts. */
export interface RotatedSecret {
  readonly app: StoredApp;
  /** The new secret, now the app's. */
  readonly secret: string;
  /** Until when (epoch ms) the replaced secret is still accepted; equal to now for no grace period. */
  readonly previousValidUntil: number;
}

/** The reads and writes of single apps, each one SQL statement on the store's connection. */
export interface Queries {
  get(id: string): Promise<StoredApp | undefined>;
  add(app: AppFields): Promise<StoredApp>;
  update(id: string, changes: Partial<Record<keyof AppFields, unknown>>): Promise<StoredApp>;
  disable(id: string): Promise<StoredApp>;
  rotateSecret(id: string, options: { graceSeconds: number; secret?: string }): Promise<RotatedSecret>;
}

/** Runs one statement; how the connection is opened is the caller's. */
export type Query = (text: string, values?: unknown[]) => Promise<Row[]>;

const PG_UNIQUE_VIOLATION = '23505';

// PostgreSQL writes `until` as the same ISO 8601 text JavaScript's toISOString gives, so entries compare as text.
const ISO_NOW = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const ISO_NOW_PLUS_GRACE = `to_char((now() + make_interval(secs => $3)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The rotation, one statement: the old secret is read and kept under the row lock the update takes, so two
 * rotations at once cannot lose a secret. Entries already expired are dropped on the way; the replaced secret is
 * appended last, valid for `$3` seconds (none for 0).
 */
function rotationSql(table: string): string {
  return `UPDATE ${table} AS t SET
    secret = $2,
    previous_secrets = (
      SELECT coalesce(jsonb_agg(entry), '[]'::jsonb) FROM (
        SELECT entry FROM jsonb_array_elements(
          CASE WHEN jsonb_typeof(t.previous_secrets) = 'array' THEN t.previous_secrets ELSE '[]'::jsonb END
        ) AS entry
        WHERE jsonb_typeof(entry) = 'object' AND (entry->>'until') > ${ISO_NOW}
        UNION ALL
        SELECT jsonb_build_object('secret', t.secret, 'until', ${ISO_NOW_PLUS_GRACE})
        WHERE $3 > 0
      ) AS kept
    ),
    updated_at = now()
  WHERE id = $1 RETURNING *`;
}

function describeProblem(problem: ColumnProblem): string {
  return `${problem.column}: ${problem.message}`;
}

function invalid(problem: ColumnProblem): AppStorePostgresError {
  return new AppStorePostgresError('invalid_app', describeProblem(problem));
}

function notFound(id: string): AppStorePostgresError {
  return new AppStorePostgresError('not_found', `no app has the id "${id}"`);
}

/** JSON columns go to PostgreSQL as JSON text, the secret sealed (with a key); the rest as they are. */
function toSql(column: string, value: unknown, cipher: SecretCipher | undefined): unknown {
  if (value === null) return null;
  if (column === 'secret' && typeof value === 'string') return sealSecret(value, cipher);
  return COLUMNS.find((entry) => entry.name === column)?.kind.json ? JSON.stringify(value) : value;
}

/** A row written and returned, as an app; a row this package could not read back (or open) is refused. */
function appOf(row: Row | undefined, cipher: SecretCipher | undefined): StoredApp | undefined {
  if (!row) return undefined;
  const opened = openRow(row, cipher);
  if (!opened.ok) {
    const code = opened.error.problem === 'corrupt' ? 'invalid_app' : opened.error.problem;
    throw new AppStorePostgresError(code, describeOpenProblem(opened.error, row, cipher));
  }
  const parsed = parseRow(opened.value);
  if (!parsed.ok) {
    throw new AppStorePostgresError(
      'invalid_app',
      `app ${parsed.error.appId}: ${describeProblem(parsed.error)}`,
    );
  }
  return parsed.value;
}

function isUniqueViolation(error: unknown): error is Error & { code: string; detail?: unknown } {
  return error instanceof Error && 'code' in error && error.code === PG_UNIQUE_VIOLATION;
}

/**
 * Creates the single-app reads and writes of the app table `table` (quoted); with a cipher, secrets are sealed on
 * the way in and opened on the way out.
 */
export function createQueries(query: Query, table: string, cipher?: SecretCipher): Queries {
  async function write(text: string, values: unknown[]): Promise<StoredApp | undefined> {
    try {
      return appOf((await query(text, values))[0], cipher);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const detail = typeof error.detail === 'string' ? error.detail : error.message;
      throw new AppStorePostgresError('conflict', `another app has this id or key: ${detail}`, {
        cause: error,
      });
    }
  }

  async function get(id: string): Promise<StoredApp | undefined> {
    return appOf((await query(`SELECT * FROM ${table} WHERE id = $1`, [id]))[0], cipher);
  }

  async function update(id: string, changes: Partial<Record<keyof AppFields, unknown>>): Promise<StoredApp> {
    const checked = checkFields(changes, false);
    if (!checked.ok) throw invalid(checked.error);
    const entries = Object.entries(checked.value);
    // A new secret is sealed with this store's key: the row must open with it first, or it would end up holding
    // values sealed by two keys (get refuses a row the key cannot open).
    if (entries.length === 0 || 'secret' in checked.value) {
      const existing = await get(id);
      if (!existing) throw notFound(id);
      if (entries.length === 0) return existing;
    }
    const sets = entries.map(([column], index) => `${column} = $${index + 2}`);
    const updated = await write(
      `UPDATE ${table} SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, ...entries.map(([column, value]) => toSql(column, value, cipher))],
    );
    if (!updated) throw notFound(id);
    return updated;
  }

  return {
    get,
    update,

    async add(app) {
      const checked = parseApp(app);
      if (!checked.ok) throw invalid(checked.error);
      const entries = Object.entries(checked.value);
      const added = await write(
        `INSERT INTO ${table} (${entries.map(([column]) => column).join(', ')})
         VALUES (${entries.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING *`,
        entries.map(([column, value]) => toSql(column, value, cipher)),
      );
      // INSERT … RETURNING answers the row it inserted, or fails.
      if (!added) throw new AppStorePostgresError('unavailable', `app ${checked.value.id} was not added`);
      return added;
    },

    disable: (id) => update(id, { enabled: false }),

    async rotateSecret(id, rotation) {
      if (!Number.isFinite(rotation.graceSeconds) || rotation.graceSeconds < 0) {
        throw new AppStorePostgresError('invalid_app', 'grace period: must be 0 or more seconds');
      }
      const secret = rotation.secret ?? generateSecret();
      const checked = checkFields({ secret }, false);
      if (!checked.ok) throw invalid(checked.error);
      // The replaced secret moves to previous_secrets as stored: it must be sealed by this store's key too.
      if (!(await get(id))) throw notFound(id);
      const rotated = await write(rotationSql(table), [
        id,
        sealSecret(secret, cipher),
        rotation.graceSeconds,
      ]);
      if (!rotated) throw notFound(id);
      // The replaced secret is the entry appended last.
      const previousValidUntil =
        rotation.graceSeconds > 0 ? (rotated.previous_secrets?.at(-1)?.until ?? Date.now()) : Date.now();
      return { app: rotated, secret, previousValidUntil };
    },
  };
}
