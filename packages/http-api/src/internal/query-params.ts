import type { QueryParams } from '@herald/protocol-core';

/**
 * Parses a raw query string (without `?`) into the record a request signature is checked against: decoded as
 * `URLSearchParams` decodes, repeated parameters joined with commas as the server SDKs send arrays.
 */
export function parseQueryParams(query: string): QueryParams {
  const record: Record<string, string> = {};
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
  // A read rather than `in`: the same answer (the names the object inherits are never undefined either), and half
  // the cost, since `in` on a missing key walks the prototype the slow way.
  const previous = record[key];
  record[key] = previous === undefined ? value : `${previous},${value}`;
}
