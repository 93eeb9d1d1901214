import { describe, expect, it } from 'vitest';
import { checkReadOnlySql } from './sql-guard.js';

describe('checkReadOnlySql', () => {
  it('lets one reading statement through, without its trailing semicolon', () => {
    expect(checkReadOnlySql('select * from users;')).toEqual({ ok: true, value: 'select * from users' });
    expect(checkReadOnlySql('WITH t AS (SELECT 1) SELECT * FROM t').ok).toBe(true);
    expect(checkReadOnlySql('explain select 1').ok).toBe(true);
  });

  it('does not mistake text in strings and comments for a second statement or a write', () => {
    expect(checkReadOnlySql("select 'a; delete from users' -- drop table x;\n").ok).toBe(true);
    expect(checkReadOnlySql('select $$; update t set a = 1$$').ok).toBe(true);
  });

  it('refuses writes, DDL, several statements and SELECT INTO', () => {
    for (const sql of [
      'insert into users values (1)',
      'UPDATE users SET name = 1',
      'drop table users',
      'select 1; delete from users',
      'with gone as (delete from users returning *) select * from gone',
      'select * into backup from users',
      'begin',
      '',
    ]) {
      expect(checkReadOnlySql(sql).ok, sql).toBe(false);
    }
  });
});
