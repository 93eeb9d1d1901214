import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL the tests use: `DATABASE_URL`, or the machine's shared test database (trust auth). */
export const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name under `prefix`, random so parallel runs never meet. */
export function randomSchema(prefix = 'herald_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(5).toString('hex')}`;
}

/** Runs one statement on a short-lived connection of its own. */
export async function sql(
  text: string,
  values: unknown[] = [],
  url: string = POSTGRES_URL,
): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string, url: string = POSTGRES_URL): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, [], url);
}
