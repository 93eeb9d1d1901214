import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** No tool answer grows past this many characters; longer ones are cut with a note. */
export const MAX_RESULT_CHARS = 40_000;

/** A tool answer as compact JSON (few tokens), cut at {@link MAX_RESULT_CHARS}. */
export function jsonResult(value: unknown): CallToolResult {
  return textResult(JSON.stringify(value));
}

/**
 * A JSON answer that stays valid JSON under `max` characters: when it is longer, the list at `key` is cut
 * to what fits and `truncated` tells how many items were shown of how many.
 */
export function jsonResultWithin<T extends object>(value: T, key: keyof T & string, max = MAX_RESULT_CHARS) {
  const full = JSON.stringify(value);
  const list = value[key];
  if (full.length <= max || !Array.isArray(list)) return textResult(full);
  const shown = (count: number) =>
    JSON.stringify({
      ...value,
      [key]: list.slice(0, count),
      truncated: { [key]: { shown: count, total: list.length }, note: `Only the first ${count} ${key} fit.` },
    });
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (shown(mid).length <= max) low = mid;
    else high = mid - 1;
  }
  return textResult(shown(low));
}

export function textResult(text: string): CallToolResult {
  const cut =
    text.length > MAX_RESULT_CHARS
      ? `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated: ${text.length - MAX_RESULT_CHARS} more characters; narrow the request]`
      : text;
  return { content: [{ type: 'text', text: cut }] };
}

/** A tool failure the agent can read and act on. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** One page of a list: `cursor` is the opaque offset a previous page returned as `nextCursor`. */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  limit: number,
): { items: T[]; total: number; nextCursor?: string } {
  const start = Math.max(0, Number.parseInt(cursor ?? '0', 10) || 0);
  const page = items.slice(start, start + limit);
  const next = start + page.length;
  return next < items.length
    ? { items: page, total: items.length, nextCursor: String(next) }
    : { items: page, total: items.length };
}
