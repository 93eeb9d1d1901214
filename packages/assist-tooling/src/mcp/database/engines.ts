// Runs in the child process (see child-runner.ts): each engine opens its own connection, reads inside a
// read-only transaction that is always rolled back, under a statement timeout, and returns at most maxRows.
import { readFileSync } from 'node:fs';
import type { DatabaseConnection } from './connections.js';

export interface QueryOptions {
  maxRows: number;
  timeoutMs: number;
}

export interface QueryAnswer {
  columns: string[];
  rows: unknown[][];
  /** More rows existed than `maxRows`; only the first ones are here. */
  truncated: boolean;
}

export interface SchemaTable {
  name: string;
  kind: 'table' | 'view';
  columns: { name: string; type: string; nullable: boolean; default?: string }[];
  primaryKey: string[];
  foreignKeys: string[];
  indexes: string[];
}

type Load = (name: string) => Promise<unknown>;

interface SqlClient {
  /** Rows as arrays of values, with column names. */
  rows(sql: string): Promise<{ columns: string[]; rows: unknown[][] }>;
  close(): Promise<void>;
}

const READ_ONLY_VIOLATION =
  /read-only transaction|READ ONLY transaction|readonly database|query_only|ER_CANT_EXECUTE_IN_READ_ONLY/i;

/** Runs one read-only statement and returns at most `maxRows` rows. */
export async function queryDatabase(
  load: Load,
  connection: DatabaseConnection,
  sql: string,
  options: QueryOptions,
): Promise<QueryAnswer> {
  const client = await open(load, connection, options.timeoutMs);
  try {
    const { columns, rows } = await client.rows(sql);
    return {
      columns,
      rows: rows.slice(0, options.maxRows).map(plainRow),
      truncated: rows.length > options.maxRows,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    if (
      READ_ONLY_VIOLATION.test(message) ||
      code === '25006' ||
      code === 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION'
    ) {
      throw new Error(`Refused by the database: queries run read-only here (${message}).`);
    }
    throw error;
  } finally {
    await client.close();
  }
}

function plainRow(row: unknown[]): unknown[] {
  return row.map((value) =>
    value instanceof Uint8Array
      ? `<${value.byteLength} bytes>`
      : typeof value === 'bigint'
        ? value.toString()
        : value,
  );
}

/** Every read ends in a rollback, and the connection closes even when the rollback fails. */
async function rollbackThenClose(
  rollback: () => Promise<unknown>,
  close: () => Promise<unknown>,
): Promise<void> {
  try {
    await rollback();
  } finally {
    await close();
  }
}

async function open(load: Load, connection: DatabaseConnection, timeoutMs: number): Promise<SqlClient> {
  switch (connection.engine) {
    case 'postgres':
      return openPostgres(load, connection.target, timeoutMs);
    case 'pglite':
      return openPglite(load, connection.target, timeoutMs);
    case 'mysql':
      return openMysql(load, connection.target, timeoutMs);
    case 'sqlite':
      return openSqlite(load, connection.target);
  }
}

interface PgResult {
  fields: { name: string }[];
  rows: unknown[][];
}
interface PgClient {
  connect(): Promise<void>;
  query(query: string | { text: string; rowMode: 'array'; queryMode?: 'extended' }): Promise<PgResult>;
  end(): Promise<void>;
}
type PgClientClass = new (options: object) => PgClient;

async function openPostgres(load: Load, url: string, timeoutMs: number): Promise<SqlClient> {
  // pg is CommonJS: its Client is a named export under ESM interop, or on the default export.
  const pg = (await load('pg')) as { default?: { Client?: PgClientClass }; Client?: PgClientClass };
  const Client = pg.default?.Client ?? pg.Client;
  if (!Client) throw new Error('The installed pg package exports no Client.');
  const client = new Client({
    connectionString: url,
    application_name: 'assist',
    connectionTimeoutMillis: timeoutMs,
  });
  await client.connect();
  await client.query('BEGIN TRANSACTION READ ONLY');
  await client.query(`SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
  return {
    // The extended protocol runs exactly one statement, whatever the text holds.
    rows: async (sql) => {
      const result = await client.query({ text: sql, rowMode: 'array', queryMode: 'extended' });
      return { columns: (result.fields ?? []).map((field) => field.name), rows: result.rows ?? [] };
    },
    close: () =>
      rollbackThenClose(
        () => client.query('ROLLBACK'),
        () => client.end(),
      ),
  };
}

interface PgliteDb {
  waitReady: Promise<void>;
  query(sql: string, params: unknown[], options: { rowMode: 'array' }): Promise<PgResult>;
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

async function openPglite(load: Load, dataDir: string, timeoutMs: number): Promise<SqlClient> {
  const { PGlite } = (await load('@electric-sql/pglite')) as { PGlite: new (dir: string) => PgliteDb };
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.exec(`BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
  return {
    rows: async (sql) => {
      const result = await db.query(sql, [], { rowMode: 'array' });
      return { columns: result.fields.map((field) => field.name), rows: result.rows };
    },
    close: () =>
      rollbackThenClose(
        () => db.exec('ROLLBACK'),
        () => db.close(),
      ),
  };
}

interface MysqlConnection {
  query(
    options: string | { sql: string; rowsAsArray: boolean },
  ): Promise<[unknown, { name: string }[] | undefined]>;
  end(): Promise<void>;
}

async function openMysql(load: Load, url: string, timeoutMs: number): Promise<SqlClient> {
  const mysql = (await load('mysql2/promise')) as {
    default?: { createConnection(options: object): Promise<MysqlConnection> };
    createConnection(options: object): Promise<MysqlConnection>;
  };
  const createConnection = mysql.default?.createConnection ?? mysql.createConnection;
  const connection = await createConnection({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    multipleStatements: false,
    connectTimeout: timeoutMs,
    dateStrings: true,
  });
  try {
    // MariaDB limits every statement with max_statement_time (seconds); MySQL limits SELECTs with
    // max_execution_time (milliseconds). Each server refuses the other's variable, so the refusal is the test.
    await connection.query(`SET SESSION max_statement_time = ${timeoutMs / 1000}`);
  } catch {
    await connection.query(`SET SESSION max_execution_time = ${Math.round(timeoutMs)}`);
  }
  await connection.query('START TRANSACTION READ ONLY');
  return {
    rows: async (sql) => {
      const [rows, fields] = await connection.query({ sql, rowsAsArray: true });
      return Array.isArray(rows)
        ? { columns: (fields ?? []).map((field) => field.name), rows: rows as unknown[][] }
        : { columns: [], rows: [] };
    },
    close: () =>
      rollbackThenClose(
        () => connection.query('ROLLBACK'),
        () => connection.end(),
      ),
  };
}

interface SqlJsStatement {
  getColumnNames(): string[];
  step(): boolean;
  get(): unknown[];
  free(): void;
}
interface SqlJsDatabase {
  exec(sql: string): { columns: string[]; values: unknown[][] }[];
  prepare(sql: string): SqlJsStatement;
  close(): void;
}

async function openSqlite(load: Load, file: string): Promise<SqlClient> {
  const mod = (await load('sql.js')) as { default?: unknown };
  const init = (mod.default ?? mod) as () => Promise<{ Database: new (data: Uint8Array) => SqlJsDatabase }>;
  const SQL = await init();
  // sql.js works on an in-memory copy, so the file is never written; query_only also refuses writes to the copy.
  const db = new SQL.Database(readFileSync(file));
  db.exec('PRAGMA query_only = ON');
  return {
    rows: async (sql) => {
      const statement = db.prepare(sql);
      try {
        const rows: unknown[][] = [];
        // One row past any sensible cap is enough to say "truncated"; the caller slices.
        while (rows.length <= 10_000 && statement.step()) rows.push(statement.get());
        return { columns: statement.getColumnNames(), rows };
      } finally {
        statement.free();
      }
    },
    close: async () => db.close(),
  };
}

/** Reads every table and view with columns, keys and indexes (system schemas left out). */
export async function readDatabaseSchema(load: Load, connection: DatabaseConnection): Promise<SchemaTable[]> {
  const client = await open(load, connection, 15_000);
  try {
    if (connection.engine === 'postgres' || connection.engine === 'pglite')
      return await postgresSchema(client);
    if (connection.engine === 'mysql') return await mysqlSchema(client);
    return await sqliteSchema(client);
  } finally {
    await client.close();
  }
}

function tableMap() {
  const tables = new Map<string, SchemaTable>();
  const get = (name: string, kind: SchemaTable['kind'] = 'table') => {
    let table = tables.get(name);
    if (!table) {
      table = { name, kind, columns: [], primaryKey: [], foreignKeys: [], indexes: [] };
      tables.set(name, table);
    }
    return table;
  };
  return { tables, get };
}

const columnList = (definition: string): string[] =>
  (/\(([^)]*)\)/.exec(definition)?.[1] ?? '').split(',').map((name) => name.trim().replace(/^"|"$/g, ''));

async function postgresSchema(client: SqlClient): Promise<SchemaTable[]> {
  const { tables, get } = tableMap();
  const system = (column: string) =>
    `${column} not in ('pg_catalog', 'information_schema') and ${column} not like 'pg_toast%'`;
  const qualified = (schema: unknown, table: unknown) =>
    schema === 'public' ? String(table) : `${schema}.${table}`;
  const columns = await client.rows(
    `select c.table_schema, c.table_name, t.table_type, c.column_name,
       case when c.data_type in ('USER-DEFINED', 'ARRAY') then c.udt_name else c.data_type end,
       c.is_nullable, c.column_default
     from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where ${system('c.table_schema')}
     order by c.table_schema, c.table_name, c.ordinal_position`,
  );
  for (const [schema, table, type, name, dataType, nullable, fallback] of columns.rows) {
    get(qualified(schema, table), type === 'VIEW' ? 'view' : 'table').columns.push({
      name: String(name),
      type: String(dataType),
      nullable: nullable === 'YES',
      ...(fallback === null ? {} : { default: String(fallback) }),
    });
  }
  const constraints = await client.rows(
    `select n.nspname, cl.relname, con.contype, pg_get_constraintdef(con.oid)
     from pg_constraint con join pg_class cl on cl.oid = con.conrelid join pg_namespace n on n.oid = cl.relnamespace
     where con.contype in ('p', 'f') and ${system('n.nspname')}`,
  );
  for (const [schema, table, type, definition] of constraints.rows) {
    const entry = tables.get(qualified(schema, table));
    if (!entry) continue;
    if (type === 'p') entry.primaryKey = columnList(String(definition));
    else entry.foreignKeys.push(String(definition));
  }
  const indexes = await client.rows(
    `select schemaname, tablename, indexdef from pg_indexes
     where ${system('schemaname')} order by indexname`,
  );
  for (const [schema, table, definition] of indexes.rows) {
    tables.get(qualified(schema, table))?.indexes.push(
      String(definition)
        .replace(/^CREATE /, '')
        .replace(/ ON \S+ USING /, ' '),
    );
  }
  return [...tables.values()];
}

async function mysqlSchema(client: SqlClient): Promise<SchemaTable[]> {
  const { tables, get } = tableMap();
  const columns = await client.rows(
    `select c.table_name, t.table_type, c.column_name, c.column_type, c.is_nullable, c.column_default, c.column_key
     from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = database() order by c.table_name, c.ordinal_position`,
  );
  for (const [table, type, name, columnType, nullable, fallback, key] of columns.rows) {
    const entry = get(String(table), type === 'VIEW' ? 'view' : 'table');
    entry.columns.push({
      name: String(name),
      type: String(columnType),
      nullable: nullable === 'YES',
      ...(fallback === null ? {} : { default: String(fallback) }),
    });
    if (key === 'PRI') entry.primaryKey.push(String(name));
  }
  const indexes = await client.rows(
    `select table_name, index_name, non_unique, group_concat(column_name order by seq_in_index)
     from information_schema.statistics where table_schema = database() and index_name <> 'PRIMARY'
     group by table_name, index_name, non_unique order by index_name`,
  );
  for (const [table, name, nonUnique, names] of indexes.rows) {
    tables
      .get(String(table))
      ?.indexes.push(`${Number(nonUnique) === 0 ? 'UNIQUE ' : ''}INDEX ${name} (${names})`);
  }
  const keys = await client.rows(
    `select table_name, group_concat(column_name order by ordinal_position), referenced_table_name,
       group_concat(referenced_column_name order by ordinal_position)
     from information_schema.key_column_usage
     where table_schema = database() and referenced_table_name is not null
     group by table_name, constraint_name, referenced_table_name`,
  );
  for (const [table, names, target, targetNames] of keys.rows) {
    tables
      .get(String(table))
      ?.foreignKeys.push(`FOREIGN KEY (${names}) REFERENCES ${target}(${targetNames})`);
  }
  return [...tables.values()];
}

async function sqliteSchema(client: SqlClient): Promise<SchemaTable[]> {
  const { tables, get } = tableMap();
  const list = await client.rows(
    `select name, type from sqlite_schema where type in ('table', 'view') and name not like 'sqlite_%' order by name`,
  );
  for (const [name, type] of list.rows) {
    const table = get(String(name), type === 'view' ? 'view' : 'table');
    const quoted = `'${String(name).replaceAll("'", "''")}'`;
    const columns = await client.rows(
      `select name, type, "notnull", dflt_value, pk from pragma_table_info(${quoted})`,
    );
    for (const [column, columnType, notNull, fallback, pk] of columns.rows) {
      table.columns.push({
        name: String(column),
        type: String(columnType),
        nullable: Number(notNull) === 0,
        ...(fallback === null ? {} : { default: String(fallback) }),
      });
      if (Number(pk) > 0) table.primaryKey.push(String(column));
    }
    const keys = await client.rows(`select "from", "table", "to" from pragma_foreign_key_list(${quoted})`);
    for (const [from, target, to] of keys.rows)
      table.foreignKeys.push(`FOREIGN KEY (${from}) REFERENCES ${target}(${to})`);
    const indexes = await client.rows(`select name, "unique" from pragma_index_list(${quoted})`);
    for (const [index, unique] of indexes.rows) {
      const names = await client.rows(
        `select name from pragma_index_info('${String(index).replaceAll("'", "''")}')`,
      );
      table.indexes.push(
        `${Number(unique) ? 'UNIQUE ' : ''}INDEX ${index} (${names.rows.map((row) => row[0]).join(', ')})`,
      );
    }
  }
  return [...tables.values()];
}
