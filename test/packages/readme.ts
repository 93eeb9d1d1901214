import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReadmeBlock {
  lang: string;
  code: string;
}

/** The fenced code blocks of the README section under `## heading` (up to the next `## `), in order. */
export function sectionBlocks(readmePath: string, heading: string): ReadmeBlock[] {
  const text = readFileSync(readmePath, 'utf8');
  const start = text.search(new RegExp(`^##+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm'));
  if (start < 0) throw new Error(`${readmePath} has no section "${heading}"`);
  const rest = text.slice(start);
  const next = rest.slice(3).search(/^## /m);
  const section = next < 0 ? rest : rest.slice(0, next + 3);
  const blocks: ReadmeBlock[] = [];
  for (const match of section.matchAll(/^```(\w*)\n([\s\S]*?)^```\s*$/gm)) {
    blocks.push({ lang: match[1] ?? '', code: match[2] ?? '' });
  }
  return blocks;
}

/** The first TypeScript or JavaScript block of the section: the example the check runs as written. */
export function readmeExample(dir: string, heading: string): ReadmeBlock {
  const block = sectionBlocks(join(dir, 'README.md'), heading).find((candidate) =>
    ['ts', 'typescript', 'js', 'javascript'].includes(candidate.lang),
  );
  if (!block) throw new Error(`the README section "${heading}" in ${dir} has no ts or js code block`);
  return block;
}

/**
 * The output the example promises: every `// → text` comment, in order. The check expects each text on its own
 * line of the example's standard output.
 */
export function promisedOutput(code: string): string[] {
  return [...code.matchAll(/\/\/ → (.*)$/gm)].map((match) => (match[1] ?? '').trim());
}

/** What the README says `require('<name>')` does: works through Node's require(esm), or fails with a code. */
export function requireClaim(dir: string): { works: true } | { works: false; code: string } | undefined {
  const text = readFileSync(join(dir, 'README.md'), 'utf8');
  const fails = /`require\(\)` fails with `(ERR_[A-Z_]+)`/.exec(text);
  if (fails?.[1]) return { works: false, code: fails[1] };
  if (/`require\(\)` works .*require\(esm\)/.test(text)) return { works: true };
  return undefined;
}
