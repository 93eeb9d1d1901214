import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** No tool answer grows past this many characters; longer ones are cut with a note. */
export const MAX_RESULT_CHARS = 40_000;

/** A tool answer as compact JSON (few tokens), cut at {@link MAX_RESULT_CHARS}. */
export function jsonResult(value: unknown): CallToolResult {
  return textResult(JSON.stringify(value));
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
