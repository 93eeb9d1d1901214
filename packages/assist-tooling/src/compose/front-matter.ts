import { parse } from 'yaml';

/** Markdown split into its YAML front matter (as an object) and its body. */
export interface FrontMatter {
  data: Record<string, unknown>;
  body: string;
}

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits leading YAML front matter from Markdown; leading HTML comments (licence headers) are skipped,
 * and text without front matter gives empty data.
 * @throws {Error} when the front matter is not valid YAML.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const source = text.replace(/^\uFEFF/, '').replace(/^(\s*<!--[\s\S]*?-->)*\s*/, '');
  const match = BLOCK.exec(source);
  if (!match) return { data: {}, body: text };
  const data: unknown = parse(match[1] ?? '');
  return {
    data:
      data !== null && typeof data === 'object' && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : {},
    body: source.slice(match[0].length),
  };
}
