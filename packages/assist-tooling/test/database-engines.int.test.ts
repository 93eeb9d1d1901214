import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanFixtures, copyFixtureApp, startAssistMcp } from './helpers.js';

const TABLE = `assist_books_${process.pid}_${Date.now()}`;
const MARIA_URL = 'mysql://root@127.0.0.1:3306/test';

let root: string;
let mcp: Awaited<ReturnType<typeof startAssistMcp>>;
let maria: mysql.Connection;

async function json(name: string, args: Record<string, unknown>) {
  const answer = await mcp.call(name, args);
  expect(answer.isError, answer.text).toBe(false);
  return JSON.parse(answer.text);
}

beforeAll(async () => {
  root = copyFixtureApp('sql-app');
  maria = await mysql.createConnection({ uri: MARIA_URL, multipleStatements: true });
  await maria.query(`
    create table ${TABLE} (id int primary key auto_increment, title varchar(200) not null, isbn char(13) unique);
    insert into ${TABLE} (title, isbn) values ('Dune', '9780441172719'), ('Emma', '9780141439587');`);
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`create table songs (id integer primary key, title text not null); create index songs_title on songs (title);
    insert into songs (title) values ('Blue'), ('Red');`);
  writeFileSync(join(root, 'app.db'), db.export());
  db.close();
  writeFileSync(
    join(root, 'assist.config.json'),
    JSON.stringify({
      Assist: { database: { connections: { maria: MARIA_URL, lite: 'sqlite:./app.db' }, default: 'maria' } },
    }),
  );
  mcp = await startAssistMcp(root);
});

afterAll(async () => {
  await mcp?.client.close();
  await maria?.query(`drop table if exists ${TABLE}`);
  await maria?.end();
  cleanFixtures();
});

describe('database tools on MariaDB and SQLite', () => {
  it('reads MariaDB, the default connection, with a row cap', async () => {
    expect(
      await json('database-query', { query: `select title from ${TABLE} order by id`, limit: 1 }),
    ).toEqual({
      connection: 'maria',
      columns: ['title'],
      rows: [['Dune']],
      truncated: true,
    });
  });

  it('refuses writes on MariaDB and the table is unchanged', async () => {
    for (const query of [
      `delete from ${TABLE}`,
      `create table x_${TABLE} (id int)`,
      `select 1; drop table ${TABLE}`,
    ]) {
      const answer = await mcp.call('database-query', { query });
      expect(answer, query).toMatchObject({ isError: true, text: expect.stringMatching(/^Refused/) });
    }
    const [rows] = await maria.query(`select count(*) as n from ${TABLE}`);
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('describes the MariaDB table', async () => {
    const schema = await json('database-schema', { filter: TABLE });
    expect(schema.items).toEqual([
      {
        name: TABLE,
        kind: 'table',
        columns: [
          { name: 'id', type: 'int(11)', nullable: false },
          { name: 'title', type: 'varchar(200)', nullable: false },
          { name: 'isbn', type: 'char(13)', nullable: true, default: 'NULL' },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
        indexes: ['UNIQUE INDEX isbn (isbn)'],
      },
    ]);
  });

  it('reads SQLite, refuses its writes at the tool and at the engine, and leaves the file as it was', async () => {
    const before = readFileSync(join(root, 'app.db'));
    expect(
      await json('database-query', { query: 'select title from songs order by id', connection: 'lite' }),
    ).toMatchObject({
      rows: [['Blue'], ['Red']],
    });
    const write = await mcp.call('database-query', {
      query: "insert into songs (title) values ('Green')",
      connection: 'lite',
    });
    expect(write).toMatchObject({ isError: true, text: expect.stringMatching(/^Refused/) });
    const engine = await mcp.call('database-query', { query: 'pragma user_version = 7', connection: 'lite' });
    expect(engine).toMatchObject({ isError: true, text: expect.stringMatching(/^Refused by the database/) });
    expect(readFileSync(join(root, 'app.db')).equals(before)).toBe(true);
    const schema = await json('database-schema', { connection: 'lite' });
    expect(schema.items).toEqual([
      {
        name: 'songs',
        kind: 'table',
        columns: [
          { name: 'id', type: 'INTEGER', nullable: true },
          { name: 'title', type: 'TEXT', nullable: false },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
        indexes: ['INDEX songs_title (title)'],
      },
    ]);
  });
});
