/**
 * The first value of `name` in a URL query (without or with its leading `?`), as `URLSearchParams#get` gives it,
 * or `null`. Runs once per WebSocket upgrade: plain queries such as `protocol=7&client=js&version=8.4.0` are
 * read in place, without building a `URLSearchParams`; a query with escapes (`%`, `+`) is handed to it.
 */
export function queryParam(query: string, name: string): string | null {
  if (query.includes('%') || query.includes('+')) return new URLSearchParams(query).get(name);
  let start = query.startsWith('?') ? 1 : 0;
  while (start < query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    if (query.startsWith(name, start)) {
      const after = start + name.length;
      if (after === end) return '';
      if (query.charCodeAt(after) === 61 /* '=' */) return query.slice(after + 1, end);
    }
    start = end + 1;
  }
  return null;
}
