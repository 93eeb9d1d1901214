import type { Result } from '../../errors.js';

const READ_KEYWORDS = new Set([
  'select',
  'with',
  'show',
  'explain',
  'describe',
  'desc',
  'values',
  'table',
  'pragma',
]);

/** The SQL with strings, quoted names and comments blanked out, so keywords and `;` can be looked for. */
function code(sql: string): string {
  return sql.replace(
    /'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\$(\w*)\$[\s\S]*?\$\1\$|--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g,
    ' ',
  );
}

/**
 * The first of the two read-only layers: one statement, starting with a reading keyword, no `INTO`, no
 * `EXPLAIN ANALYZE` of a write. The engine's read-only transaction is the second layer and the real one.
 */
export function checkReadOnlySql(sql: string): Result<string, string> {
  const bare = code(sql).trim().replace(/;\s*$/, '');
  if (bare === '') return { ok: false, error: 'The query is empty.' };
  if (bare.includes(';')) return { ok: false, error: 'Refused: send one statement at a time.' };
  const keyword = /^\(*\s*(\w+)/.exec(bare)?.[1]?.toLowerCase() ?? '';
  if (!READ_KEYWORDS.has(keyword)) {
    return {
      ok: false,
      error: `Refused: database-query is read-only and "${keyword.toUpperCase()}" changes data or state. Only SELECT, WITH, SHOW, EXPLAIN, DESCRIBE, VALUES and PRAGMA reads run.`,
    };
  }
  // A CTE or a function may still write; the engine refuses those. Plain writes are refused here already.
  if (
    keyword !== 'explain' &&
    /\b(insert\s+into|update\s+[\w."`]+\s+set|delete\s+from|truncate\s+|drop\s+table|alter\s+table)/i.test(
      bare,
    )
  ) {
    return { ok: false, error: 'Refused: database-query is read-only; the query contains a write.' };
  }
  if (/\binto\s+(outfile|dumpfile|temp|temporary|unlogged|\w+)\b/i.test(bare) && keyword === 'select') {
    return { ok: false, error: 'Refused: SELECT … INTO writes; database-query is read-only.' };
  }
  return { ok: true, value: sql.trim().replace(/;\s*$/, '') };
}
