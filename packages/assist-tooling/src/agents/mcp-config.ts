import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { AssistError, fail, ok, type Result } from '../errors.js';

// Parsers may build null-prototype objects, which strict deep equality tells apart from plain ones.
function same(a: unknown, b: unknown): boolean {
  return a !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function nest(
  path: readonly string[],
  value: unknown,
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return base;
  const inner = base[head];
  base[head] =
    rest.length === 0
      ? value
      : nest(rest, value, inner !== null && typeof inner === 'object' ? { ...(inner as object) } : {});
  return base;
}

function detectIndent(text: string): number {
  return /^( +)\S/m.exec(text)?.[1]?.length ?? 2;
}

/**
 * Sets one entry of a JSON or JSONC config file and keeps everything else, comments and formatting
 * included; an unchanged entry leaves the text exactly as it was.
 */
export function mergeJsonConfig(
  file: string,
  existing: string | null,
  path: readonly string[],
  value: unknown,
  seed: Record<string, unknown> = {},
): Result<string> {
  if (existing === null || existing.trim() === '') {
    return ok(`${JSON.stringify(nest(path, value, { ...seed }), null, 2)}\n`);
  }
  const errors: ParseError[] = [];
  const current: unknown = parseJsonc(existing, errors, { allowTrailingComma: true });
  if (errors.length > 0 || current === null || typeof current !== 'object' || Array.isArray(current)) {
    const reason = errors[0] ? printParseErrorCode(errors[0].error) : 'not an object';
    return fail(
      new AssistError('config_invalid', `${file} is not valid JSON (${reason}); fix it and run again.`),
    );
  }
  if (same(valueAt(current, path), value)) return ok(existing);
  const edits = modify(existing, [...path], value, {
    formattingOptions: { insertSpaces: true, tabSize: detectIndent(existing), eol: '\n' },
  });
  return ok(applyEdits(existing, edits));
}

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

/**
 * Sets one table of a TOML file (e.g. `[mcp_servers.assist]` with its sub-tables) and keeps every other
 * line, comments included; an unchanged table leaves the text exactly as it was.
 */
export function mergeTomlTable(
  file: string,
  existing: string | null,
  path: readonly string[],
  value: Record<string, unknown>,
): Result<string> {
  const table = stringifyToml(nest(path, value)).trim();
  if (existing === null || existing.trim() === '') return ok(`${table}\n`);
  let current: unknown;
  try {
    current = parseToml(existing);
  } catch (error) {
    return fail(
      new AssistError('config_invalid', `${file} is not valid TOML; fix it and run again.`, { cause: error }),
    );
  }
  if (same(valueAt(current, path), value)) return ok(existing);
  const name = path.join('.');
  const lines = existing.split('\n');
  const kept: string[] = [];
  let at = -1;
  let inside = false;
  for (const line of lines) {
    const header = HEADER.exec(line)?.[1];
    if (header !== undefined) inside = header === name || header.startsWith(`${name}.`);
    if (inside) {
      if (at === -1) at = kept.length;
      continue;
    }
    kept.push(line);
  }
  if (at === -1) {
    const merged = `${existing.replace(/\s+$/, '')}\n\n${table}\n`;
    try {
      if (same(valueAt(parseToml(merged), path), value)) return ok(merged);
    } catch {
      // Appending clashed with an inline definition of the same key; the full rewrite below resolves it.
    }
    return rewrite(current, path, value);
  }
  kept.splice(at, 0, table, '');
  const merged = `${kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\s+$/, '')}\n`;
  return ok(merged);
}

// The entry was written in a form the line-based edit cannot replace (e.g. an inline table): rewrite whole.
function rewrite(current: unknown, path: readonly string[], value: unknown): Result<string> {
  return ok(`${stringifyToml(nest(path, value, { ...(current as Record<string, unknown>) })).trim()}\n`);
}
