import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's shared PostgreSQL (trust auth); each test file works in a schema of its own. */
export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const PG_URL = `postgres://${PG.user}@${PG.host}:${PG.port}/${PG.database}`;

/** A fresh schema name, random so parallel runs never meet. */
export function schemaName(): string {
  return `herald_apps_test_${randomBytes(5).toString('hex')}`;
}

/** Runs one statement on a short-lived connection of its own. */
export async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
