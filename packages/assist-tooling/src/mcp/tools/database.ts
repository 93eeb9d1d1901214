import { z } from 'zod';
import { runInChild } from '../app/child.js';
import {
  type DatabaseConnection,
  describeConnection,
  findDatabaseConnections,
} from '../database/connections.js';
import type { QueryAnswer, SchemaTable } from '../database/engines.js';
import { checkReadOnlySql } from '../database/sql-guard.js';
import { errorResult, jsonResult, paginate } from '../tool-result.js';
import { defineTool, type ToolContext } from './tool.js';

const connectionArg = z
  .string()
  .optional()
  .describe('Connection name from database-connections; the default one when left out.');

function pickConnection(context: ToolContext, name: string | undefined): DatabaseConnection | string {
  const all = findDatabaseConnections(context.root, context.config, context.env());
  if (all.length === 0)
    return 'No database connection found (DATABASE_URL, Prisma, Drizzle, Knex or assist.config database.connections).';
  const found =
    name === undefined ? all.find((item) => item.default) : all.find((item) => item.name === name);
  return found ?? `No connection named "${name}". Known: ${all.map((item) => item.name).join(', ')}.`;
}

export const databaseConnections = defineTool({
  name: 'database-connections',
  title: 'Database connections',
  description:
    'The databases the app is configured to use (env, Prisma, Drizzle, Knex), the default marked. No passwords.',
  input: {},
  readOnly: true,
  run: (_args, context) =>
    jsonResult(findDatabaseConnections(context.root, context.config, context.env()).map(describeConnection)),
});

export const databaseQuery = defineTool({
  name: 'database-query',
  title: 'Database query',
  description:
    'Runs one read-only SQL statement (SELECT, WITH, SHOW, EXPLAIN…) in a read-only transaction that is rolled back, ' +
    'with a statement timeout and a row cap. Writes are refused.',
  input: {
    query: z.string().min(1).max(20_000).describe('One SQL statement that only reads.'),
    connection: connectionArg,
    limit: z
      .number()
      .int()
      .positive()
      .max(1000)
      .optional()
      .describe('Most rows to return (default from config, 100).'),
  },
  readOnly: true,
  run: async ({ query, connection, limit }, context) => {
    const checked = checkReadOnlySql(query);
    if (!checked.ok) return errorResult(checked.error);
    const target = pickConnection(context, connection);
    if (typeof target === 'string') return errorResult(target);
    const { max_rows: maxRows, timeout } = context.config.database;
    const outcome = await runInChild<QueryAnswer>(
      {
        kind: 'query',
        root: context.root,
        connection: target,
        sql: checked.value,
        options: { maxRows: Math.min(limit ?? maxRows, maxRows), timeoutMs: timeout * 1000 },
      },
      timeout * 1000 + 10_000,
    );
    if (!outcome.ok) return errorResult(firstLine(outcome.error));
    return jsonResult({ connection: target.name, ...outcome.value });
  },
});

const firstLine = (text: string) => (text.split('\n    at ')[0] ?? text).replace(/^Error: /, '');

export const databaseSchema = defineTool({
  name: 'database-schema',
  title: 'Database schema',
  description:
    'Tables and views with columns, types, primary and foreign keys and indexes. Use summary for names only, ' +
    'filter to narrow by table name; long lists are paged with cursor.',
  input: {
    connection: connectionArg,
    summary: z.boolean().optional().describe('Only table names with their column names and types.'),
    filter: z.string().optional().describe('Keep tables whose name contains this text (case-insensitive).'),
    cursor: z.string().optional().describe('nextCursor from the previous page.'),
  },
  readOnly: true,
  run: async ({ connection, summary, filter, cursor }, context) => {
    const target = pickConnection(context, connection);
    if (typeof target === 'string') return errorResult(target);
    const outcome = await runInChild<SchemaTable[]>(
      { kind: 'schema', root: context.root, connection: target },
      30_000,
    );
    if (!outcome.ok) return errorResult(firstLine(outcome.error));
    const needle = filter?.toLowerCase();
    const tables = outcome.value.filter(
      (table) => needle === undefined || table.name.toLowerCase().includes(needle),
    );
    const page = paginate(tables, cursor, summary ? 200 : 40);
    const items = summary
      ? page.items.map((table) => ({
          name: table.name,
          ...(table.kind === 'view' ? { kind: 'view' } : {}),
          columns: table.columns.map((column) => `${column.name} ${column.type}`),
        }))
      : page.items;
    return jsonResult({ connection: target.name, engine: target.engine, ...page, items });
  },
});
