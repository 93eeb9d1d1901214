import type { QueryParams } from '@herald/protocol-core';

/**
 * Parses a raw query string (without `?`) into the record a request signature is checked against: decoded as
 * `URLSearchParams` decodes, repeated parameters joined with commas as the server SDKs send arrays.
 */
export function parseQueryParams(query: string): QueryParams {
  // No prototype: a parameter named `constructor` or `__proto__` is a parameter like any other.
  const record: Record<string, string> = Object.create(null);
  if (query === '') return record;
  // The SDKs send plain `key=value` pairs (hex, digits, the key): split by hand, which costs a third of
  // URLSearchParams. Anything encoded takes URLSearchParams, so decoding stays exactly the standard's.
  if (query.includes('%') || query.includes('+')) {
    for (const [key, value] of new URLSearchParams(query)) add(record, key, value);
    return record;
  }
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    if (end > start) {
      const equals = query.indexOf('=', start);
      if (equals === -1 || equals > end) add(record, query.slice(start, end), '');
      else add(record, query.slice(start, equals), query.slice(equals + 1, end));
    }
    start = end + 1;
  }
  return record;
}

function add(record: Record<string, string>, key: string, value: string): void {
  const previous = record[key];
  record[key] = previous === undefined ? value : `${previous},${value}`;
}
