import { fail, ok, type PreviousSecret, type Result } from '@herald/protocol-core';
import { isObject } from './internal/is-object.js';
import { readPreviousSecrets } from './previous-secrets.js';

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
  /** Channel history settings, kept as written (a JSON object: enabled, max_events_per_channel, max_age_seconds). */
  readonly history?: Record<string, unknown>;
  /** Authorised-connections settings, kept as written (a JSON object: enabled, timeout_seconds). */
  readonly authorized_connections?: Record<string, unknown>;
  /** Secrets replaced by `rotateSecret`, each accepted until `until` (epoch ms). Only unexpired ones are read. */
  readonly previous_secrets?: readonly PreviousSecret[];
}

/** The columns an app may be written with: everything but the rotation bookkeeping. */
export type AppFields = Omit<StoredApp, 'previous_secrets'>;

/** How one kind of column is stored, and which values it takes. */
export interface ColumnKind<T> {
  /** The column's PostgreSQL type. */
  readonly sql: string;
  /** Whether values travel as JSON text (the jsonb columns). */
  readonly json: boolean;
  /** What is wrong with a value the kind refuses. */
  readonly expected: string;
  accepts(value: unknown): value is T;
}

const text: ColumnKind<string> = {
  sql: 'text',
  json: false,
  expected: 'must be a non-empty string',
  accepts: (value): value is string => typeof value === 'string' && value !== '',
};

const positiveInteger: ColumnKind<number> = {
  sql: 'integer',
  json: false,
  expected: 'must be a positive integer',
  accepts: (value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0,
};

const positiveNumber: ColumnKind<number> = {
  sql: 'double precision',
  json: false,
  expected: 'must be a positive number',
  accepts: (value): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0,
};

const flag: ColumnKind<boolean> = {
  sql: 'boolean',
  json: false,
  expected: 'must be true or false',
  accepts: (value): value is boolean => typeof value === 'boolean',
};

const clientEvents: ColumnKind<'all' | 'members' | 'none'> = {
  sql: 'text',
  json: false,
  expected: 'must be "all", "members" or "none"',
  accepts: (value): value is 'all' | 'members' | 'none' =>
    value === 'all' || value === 'members' || value === 'none',
};

const origins: ColumnKind<readonly string[]> = {
  sql: 'jsonb',
  json: true,
  expected: 'must be a non-empty JSON array of origins (strings)',
  accepts: (value): value is readonly string[] =>
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((origin) => typeof origin === 'string' && origin !== ''),
};

const objects: ColumnKind<readonly Record<string, unknown>[]> = {
  sql: 'jsonb',
  json: true,
  expected: 'must be a JSON array of objects',
  accepts: (value): value is readonly Record<string, unknown>[] =>
    Array.isArray(value) && value.every(isObject),
};

const object: ColumnKind<Record<string, unknown>> = {
  sql: 'jsonb',
  json: true,
  expected: 'must be a JSON object',
  accepts: isObject,
};

type ColumnName = keyof AppFields;
type ColumnValue<K extends ColumnName> = NonNullable<AppFields[K]>;

// Every key of an app with the kind whose values it takes, so the compiler holds the two together. Mapped over the
// alias rather than `keyof AppFields` directly: every key is then required here, optional or not in the app.
type ColumnKinds = { readonly [K in ColumnName]: ColumnKind<ColumnValue<K>> };

// One table drives the DDL, the reads and the writes, so a column can never be added to one and not the others.
// Its order is the order columns are added and checked in.
const KINDS: ColumnKinds = {
  id: text,
  key: text,
  secret: text,
  name: text,
  max_connections: positiveInteger,
  enable_client_messages: flag,
  accept_client_events_from: clientEvents,
  enable_statistics: flag,
  enable_debug: flag,
  allowed_origins: origins,
  ping_interval: positiveNumber,
  activity_timeout: positiveNumber,
  max_message_size: positiveInteger,
  max_connection_messages_per_second: positiveInteger,
  connection_rate_limit_terminate: flag,
  enabled: flag,
  max_presence_members_per_channel: positiveInteger,
  max_presence_member_size_in_kb: positiveNumber,
  max_event_payload_in_kb: positiveNumber,
  max_event_batch_size: positiveInteger,
  max_event_channels_at_once: positiveInteger,
  max_event_name_length: positiveInteger,
  max_channel_name_length: positiveInteger,
  max_backend_events_per_second: positiveNumber,
  max_frontend_events_per_second: positiveNumber,
  max_read_requests_per_second: positiveNumber,
  webhooks: objects,
  webhook_batching: object,
  history: object,
  authorized_connections: object,
};

const REQUIRED: ReadonlySet<string> = new Set<keyof AppFields>(['id', 'key', 'secret']);

/** Whether a name is a column of the app table. */
export const isColumn = (name: string): name is keyof AppFields => Object.hasOwn(KINDS, name);

/** One column of the app table. */
export interface Column {
  readonly name: keyof AppFields;
  readonly kind: ColumnKind<unknown>;
  readonly required: boolean;
}

export const COLUMNS: readonly Column[] = Object.keys(KINDS)
  .filter(isColumn)
  .map((name) => ({ name, kind: KINDS[name], required: REQUIRED.has(name) }));

/** Why a row or a write was refused: the column at fault and what is wrong with its value. */
export interface ColumnProblem {
  readonly column: string;
  readonly message: string;
}

/** What is wrong with a non-null value of a column, or undefined when its kind takes it. */
function problemWith(name: keyof AppFields, value: unknown): string | undefined {
  const kind = KINDS[name];
  return kind.accepts(value) ? undefined : kind.expected;
}

/** An app while its columns are read one by one. */
type AppDraft = { -readonly [K in keyof AppFields]?: AppFields[K] };

/** Keeps a value in the draft when its column takes it; returns what is wrong otherwise. */
function take<K extends ColumnName>(draft: AppDraft, name: K, value: unknown): string | undefined {
  const kind = KINDS[name];
  if (!kind.accepts(value)) return kind.expected;
  draft[name] = value;
  return undefined;
}

/**
 * Reads every column of an app from `fields` in the table's order: NULL (or absent) columns are left out so the
 * app's defaults apply, a required one missing or a value of the wrong kind is refused. Other keys are ignored.
 */
function readColumns(fields: Readonly<Record<string, unknown>>): Result<AppFields, ColumnProblem> {
  const draft: AppDraft = {};
  for (const { name, required } of COLUMNS) {
    const value = fields[name];
    if (value === null || value === undefined) {
      if (required) return fail({ column: name, message: 'is required' });
      continue;
    }
    const problem = take(draft, name, value);
    if (problem) return fail({ column: name, message: problem });
  }
  // The loop refused a missing required column already; this tells the compiler.
  const { id, key, secret } = draft;
  if (id === undefined || key === undefined || secret === undefined) {
    return fail({ column: 'id', message: 'is required' });
  }
  return ok({ ...draft, id, key, secret });
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
    if (!isColumn(name)) return fail({ column: name, message: 'is not a column of the app table' });
  }
  const checked: Record<string, unknown> = {};
  for (const { name, required } of COLUMNS) {
    const value = fields[name];
    if (value === undefined || value === null) {
      if (required && (complete || value === null)) return fail({ column: name, message: 'is required' });
      if (value === null) checked[name] = null;
      continue;
    }
    const problem = problemWith(name, value);
    if (problem) return fail({ column: name, message: problem });
    checked[name] = value;
  }
  return ok(checked);
}

/**
 * Checks a whole app as `add` takes it: every key a column, every value of its column's kind, `id`, `key` and
 * `secret` present; `null` columns are left out so the app's defaults apply.
 */
export function parseApp(fields: Readonly<Record<string, unknown>>): Result<AppFields, ColumnProblem> {
  const stranger = Object.keys(fields).find((name) => !isColumn(name));
  if (stranger !== undefined) return fail({ column: stranger, message: 'is not a column of the app table' });
  return readColumns(fields);
}

/** A row as read, turned into a {@link StoredApp}; the app id (when readable) names it in the problem. */
export type RowResult = Result<StoredApp, ColumnProblem & { readonly appId: string }>;

/** Reads one table row; NULL columns are left out so the app's defaults apply, expired previous secrets too. */
export function parseRow(row: Readonly<Record<string, unknown>>, now: number = Date.now()): RowResult {
  const appId = typeof row.id === 'string' && row.id !== '' ? row.id : '(no id)';
  const app = readColumns(row);
  if (!app.ok) return fail({ appId, ...app.error });
  const previous = readPreviousSecrets(row.previous_secrets, now);
  if (!previous.ok) return fail({ appId, column: 'previous_secrets', message: previous.error });
  return ok(previous.value.length > 0 ? { ...app.value, previous_secrets: previous.value } : app.value);
}
