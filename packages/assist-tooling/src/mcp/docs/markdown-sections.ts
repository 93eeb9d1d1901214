/** One section of a Markdown file: the trail of headings above it and the text under its own heading. */
export interface MarkdownSection {
  /** Headings from the outermost to this one, e.g. `['API', 'createClient(options)']`. */
  trail: string[];
  level: number;
  body: string;
}

const ATX = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits Markdown at its headings (ATX `## x` and setext `x\n===`), ignoring `#` lines inside code fences.
 * Text before the first heading is a section with an empty trail.
 */
export function splitMarkdown(text: string): MarkdownSection[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: MarkdownSection[] = [];
  const trail: { level: number; title: string }[] = [];
  let body: string[] = [];
  let level = 0;
  let fence: string | undefined;
  const flush = () => {
    const joined = body.join('\n').trim();
    if (joined !== '' || level > 0)
      sections.push({ trail: trail.map((item) => item.title), level, body: joined });
    body = [];
  };
  const open = (depth: number, title: string) => {
    flush();
    while (trail.length > 0 && (trail.at(-1)?.level ?? 0) >= depth) trail.pop();
    trail.push({ level: depth, title: plainHeading(title) });
    level = depth;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      body.push(line);
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      body.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx?.[1] && atx[2] !== undefined) {
      open(atx[1].length, atx[2]);
      continue;
    }
    const underline = SETEXT.exec(lines[i + 1] ?? '');
    // A setext heading is one text line over `===` or `---`; a `---` under a blank line is a rule.
    if (underline?.[1] && line.trim() !== '' && !/^\s*([-*>]|\d+\.)\s/.test(line)) {
      open(underline[1].startsWith('=') ? 1 : 2, line.trim());
      i++;
      continue;
    }
    body.push(line);
  }
  flush();
  return sections;
}

/** A heading's text without links, images, emphasis and inline code marks. */
export function plainHeading(title: string): string {
  return title
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*_`]/g, '')
    .trim();
}

/**
 * The changelog section for one version: the section whose heading names it (`## 2.1.0`, `## [2.1.0] - …`,
 * `v2.1.0`, or express's setext `2.1.0 / 2025-01-01`), with the sections nested under it.
 */
export function changelogSection(text: string, version: string): MarkdownSection | undefined {
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = new RegExp(`(?:^|[^\\w.-])v?${escaped}(?:$|[^\\w.-])`);
  const sections = splitMarkdown(text);
  const start = sections.findIndex((section) => section.level > 0 && names.test(section.trail.at(-1) ?? ''));
  const found = sections[start];
  if (found === undefined) return undefined;
  const parts = [found.body];
  for (const next of sections.slice(start + 1)) {
    if (next.level <= found.level) break;
    parts.push(`${'#'.repeat(next.level)} ${next.trail.at(-1) ?? ''}\n${next.body}`);
  }
  return { ...found, body: parts.join('\n\n').trim() };
}
