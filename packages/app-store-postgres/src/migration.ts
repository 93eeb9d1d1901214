import { createHash } from 'node:crypto';
import { COLUMNS } from './columns.js';
import { AppStorePostgresError } from './errors.js';

/** Where the app table lives, with every name the migration derives from it. */
export interface TableNames {
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"`, quoted. */
  readonly qualified: string;
  /** The LISTEN/NOTIFY channel the table's trigger notifies on. */
  readonly channel: string;
}

// Plain identifiers only: they are quoted into SQL, and the trigger's function name adds a suffix (PostgreSQL
// identifiers stop at 63 bytes).
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/**
 * Checks the schema and table names and derives the quoted name and the notification channel.
 * @throws {AppStorePostgresError} `invalid_options` for a name that is not a plain identifier of 48 characters at most.
 */
export function tableNames(schema: string, table: string): TableNames {
  for (const [what, name] of [
    ['schema', schema],
    ['table', table],
  ] as const) {
    if (!IDENTIFIER.test(name)) {
      throw new AppStorePostgresError(
        'invalid_options',
        `${what} "${name}" must be a plain identifier: a letter or _, then letters, digits or _ (48 at most)`,
      );
    }
  }
  const digest = createHash('sha256').update(`${schema}.${table}`).digest('hex').slice(0, 16);
  return { schema, table, qualified: `"${schema}"."${table}"`, channel: `herald_apps_${digest}` };
}

/**
 * The migration: schema, table (every column added if missing, so a newer version extends an older table), and
 * the trigger that notifies the channel on every insert, update, delete and truncate, so every writer (this
 * package, `psql`, an admin tool) reaches every node. Idempotent; run under an advisory lock so nodes starting
 * together do not race.
 */
export function migrationSql(names: TableNames): string {
  const { schema, table, qualified, channel } = names;
  const columns = COLUMNS.filter((column) => !column.required).map(
    (column) => `ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS ${column.name} ${column.kind.sql};`,
  );
  const notify = `"${schema}"."${table}_notify"`;
  return `
CREATE SCHEMA IF NOT EXISTS "${schema}";
CREATE TABLE IF NOT EXISTS ${qualified} (
  id text PRIMARY KEY,
  key text NOT NULL UNIQUE,
  secret text NOT NULL,
  previous_secrets jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
${columns.join('\n')}
CREATE OR REPLACE FUNCTION ${notify}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('${channel}', '');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('${channel}', OLD.id);
  ELSE
    PERFORM pg_notify('${channel}', NEW.id);
  END IF;
  RETURN NULL;
END
$fn$;
DROP TRIGGER IF EXISTS "${table}_notify" ON ${qualified};
CREATE TRIGGER "${table}_notify" AFTER INSERT OR UPDATE OR DELETE ON ${qualified}
  FOR EACH ROW EXECUTE FUNCTION ${notify}();
DROP TRIGGER IF EXISTS "${table}_notify_truncate" ON ${qualified};
CREATE TRIGGER "${table}_notify_truncate" AFTER TRUNCATE ON ${qualified}
  FOR EACH STATEMENT EXECUTE FUNCTION ${notify}();
`;
}

/** The advisory lock key the migration holds, derived from the table so two tables never wait on each other. */
export function migrationLockKey(names: TableNames): string {
  // pg_advisory_xact_lock takes a bigint: the first 15 hex digits always fit.
  return BigInt(`0x${names.channel.slice('herald_apps_'.length, 'herald_apps_'.length + 15)}`).toString();
}
