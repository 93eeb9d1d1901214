import { fail, ok, type PreviousSecret, type Result } from '@herald/protocol-core';

/**
 * An application as the table stores it: the same keys as the config file's `applications[]` (snake_case), a
 * key absent where its column is NULL (the app's default applies), plus the previous secrets of a rotation.
 */
export interface StoredApp {
  readonly id: string;
  readonly key: string;
  readonly secret: string;
  readonly name?: string;
  readonly max_connections?: number;
  readonly enable_client_messages?: boolean;
  readonly accept_client_events_from?: 'all' | 'members' | 'none';
  readonly enable_statistics?: boolean;
  readonly enable_debug?: boolean;
  readonly allowed_origins?: readonly string[];
  readonly ping_interval?: number;
  readonly activity_timeout?: number;
  readonly max_message_size?: number;
  readonly max_connection_messages_per_second?: number;
  readonly connection_rate_limit_terminate?: boolean;
  readonly enabled?: boolean;
  readonly max_presence_members_per_channel?: number;
  readonly max_presence_member_size_in_kb?: number;
  readonly max_event_payload_in_kb?: number;
  readonly max_event_batch_size?: number;
  readonly max_event_channels_at_once?: number;
  readonly max_event_name_length?: number;
  readonly max_channel_name_length?: number;
  readonly max_backend_events_per_second?: number;
  readonly max_frontend_events_per_second?: number;
  readonly max_read_requests_per_second?: number;
  /** Webhook targets, kept as written (an array of objects); the app that serves webhooks validates them. */
  readonly webhooks?: readonly Record<string, unknown>[];
  /** Per-app webhook batching settings, kept as written (a JSON object). */
  readonly webhook_batching?: Record<string, unknown>;
  /** Secrets replaced by `rotateSecret`, each accepted until `until` (epoch ms). Only unexpired ones are read. */
  readonly previous_secrets?: readonly PreviousSecret[];
}

/** The columns an app may be written with: everything but the rotation bookkeeping. */
export type AppFields = Omit<StoredApp, 'previous_secrets'>;

type Kind = 'text' | 'int' | 'number' | 'bool' | 'client_events' | 'origins' | 'webhooks' | 'object';

interface Column {
  readonly name: keyof AppFields;
  readonly kind: Kind;
  readonly required?: true;
}

// One table drives the DDL, the reads and the writes, so a column can never be added to one and not the others.
export const COLUMNS: readonly Column[] = [
  { name: 'id', kind: 'text', required: true },
  { name: 'key', kind: 'text', required: true },
  { name: 'secret', kind: 'text', required: true },
  { name: 'name', kind: 'text' },
  { name: 'max_connections', kind: 'int' },
  { name: 'enable_client_messages', kind: 'bool' },
  { name: 'accept_client_events_from', kind: 'client_events' },
  { name: 'enable_statistics', kind: 'bool' },
  { name: 'enable_debug', kind: 'bool' },
  { name: 'allowed_origins', kind: 'origins' },
  { name: 'ping_interval', kind: 'number' },
  { name: 'activity_timeout', kind: 'number' },
  { name: 'max_message_size', kind: 'int' },
  { name: 'max_connection_messages_per_second', kind: 'int' },
  { name: 'connection_rate_limit_terminate', kind: 'bool' },
  { name: 'enabled', kind: 'bool' },
  { name: 'max_presence_members_per_channel', kind: 'int' },
  { name: 'max_presence_member_size_in_kb', kind: 'number' },
  { name: 'max_event_payload_in_kb', kind: 'number' },
  { name: 'max_event_batch_size', kind: 'int' },
  { name: 'max_event_channels_at_once', kind: 'int' },
  { name: 'max_event_name_length', kind: 'int' },
  { name: 'max_channel_name_length', kind: 'int' },
  { name: 'max_backend_events_per_second', kind: 'number' },
  { name: 'max_frontend_events_per_second', kind: 'number' },
  { name: 'max_read_requests_per_second', kind: 'number' },
  { name: 'webhooks', kind: 'webhooks' },
  { name: 'webhook_batching', kind: 'object' },
];

const COLUMN_NAMES: ReadonlySet<string> = new Set(COLUMNS.map((column) => column.name));

export const SQL_TYPES: Record<Kind, string> = {
  text: 'text',
  int: 'integer',
  number: 'double precision',
  bool: 'boolean',
  client_events: 'text',
  origins: 'jsonb',
  webhooks: 'jsonb',
  object: 'jsonb',
};

/** Why a row or a write was refused: the column at fault and what is wrong with its value. */
export interface ColumnProblem {
  readonly column: string;
  readonly message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks one non-null value against its column's kind; returns what is wrong, or undefined. */
function problemWith(kind: Kind, value: unknown): string | undefined {
  switch (kind) {
    case 'text':
      return typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string';
    case 'int':
      return Number.isInteger(value) && (value as number) > 0 ? undefined : 'must be a positive integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value > 0
        ? undefined
        : 'must be a positive number';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'client_events':
      return value === 'all' || value === 'members' || value === 'none'
        ? undefined
        : 'must be "all", "members" or "none"';
    case 'origins':
      return Array.isArray(value) &&
        value.length > 0 &&
        value.every((origin) => typeof origin === 'string' && origin !== '')
        ? undefined
        : 'must be a non-empty JSON array of origins (strings)';
    case 'webhooks':
      return Array.isArray(value) && value.every(isObject) ? undefined : 'must be a JSON array of objects';
    case 'object':
      return isObject(value) ? undefined : 'must be a JSON object';
  }
}

/**
 * Checks app fields as a write gives them: every key a column, every value of its column's kind (`null` clears a
 * column back to the app's default), the required ones present when `complete`.
 */
export function checkFields(
  fields: Readonly<Record<string, unknown>>,
  complete: boolean,
): Result<Record<string, unknown>, ColumnProblem> {
  for (const name of Object.keys(fields)) {
    if (!COLUMN_NAMES.has(name)) return fail({ column: name, message: 'is not a column of the app table' });
  }
  const checked: Record<string, unknown> = {};
  for (const column of COLUMNS) {
    const value = fields[column.name];
    if (value === undefined || value === null) {
      if (column.required && (complete || value === null))
        return fail({ column: column.name, message: 'is required' });
      if (value === null) checked[column.name] = null;
      continue;
    }
    const problem = problemWith(column.kind, value);
    if (problem) return fail({ column: column.name, message: problem });
    checked[column.name] = value;
  }
  return ok(checked);
}

function parsePreviousSecrets(value: unknown, now: number): Result<PreviousSecret[], string> {
  if (value === null || value === undefined) return ok([]);
  if (!Array.isArray(value)) return fail('must be a JSON array');
  const secrets: PreviousSecret[] = [];
  for (const entry of value) {
    const until = isObject(entry) && typeof entry.until === 'string' ? Date.parse(entry.until) : Number.NaN;
    if (!isObject(entry) || typeof entry.secret !== 'string' || entry.secret === '' || Number.isNaN(until)) {
      return fail('must hold {"secret": string, "until": timestamp} entries');
    }
    if (until > now) secrets.push({ secret: entry.secret, until });
  }
  return ok(secrets);
}

/** A row as read, turned into a {@link StoredApp}; the app id (when readable) names it in the problem. */
export type RowResult = Result<StoredApp, ColumnProblem & { readonly appId: string }>;

/** Reads one table row; NULL columns are left out so the app's defaults apply, expired previous secrets too. */
export function parseRow(row: Readonly<Record<string, unknown>>, now: number = Date.now()): RowResult {
  const appId = typeof row.id === 'string' && row.id !== '' ? row.id : '(no id)';
  const app: Record<string, unknown> = {};
  for (const column of COLUMNS) {
    const value = row[column.name];
    if (value === null || value === undefined) {
      if (column.required) return fail({ appId, column: column.name, message: 'is required' });
      continue;
    }
    const problem = problemWith(column.kind, value);
    if (problem) return fail({ appId, column: column.name, message: problem });
    app[column.name] = value;
  }
  const previous = parsePreviousSecrets(row.previous_secrets, now);
  if (!previous.ok) return fail({ appId, column: 'previous_secrets', message: previous.error });
  if (previous.value.length > 0) app.previous_secrets = previous.value;
  return ok(app as unknown as StoredApp);
}
