// Reads the JSDoc of the declarations in a `.d.ts` file without the TypeScript compiler: the project may not
// have TypeScript installed, and loading it (tens of MB) for every package would slow the first index build
// past a few seconds. A small scanner that skips strings and comments and follows braces is enough, because
// declaration files hold declarations only (no statements, no regular expression literals).
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** One documented declaration of a declaration file. */
export interface DeclarationDoc {
  /** `createWidget`, or `WidgetOptions.size` for a member. */
  name: string;
  /** The declaration's head without `export declare`, whitespace folded, e.g. `function createWidget(o: Options): Widget`. */
  signature: string;
  /** The JSDoc text, its `*` gutters removed, tags kept as written. */
  doc: string;
}

const TOP_LEVEL =
  /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(function|class|interface|type|const|let|var|enum|namespace|module)\s+([\w$]+)/;
const MEMBER =
  /^(?:(?:readonly|static|public|protected|private|abstract|get|set|declare|async)\s+)*\[?([\w$]+)/;
const CONTAINER = /\b(?:interface|class|namespace|module|enum)\s+([\w$.]+|['"][^'"]+['"])[^{]*$/;
const MAX_SIGNATURE = 300;

/** The documented declarations of a declaration file's text, members named after their interface or class. */
export function readDeclarationDocs(text: string): DeclarationDoc[] {
  const docs: DeclarationDoc[] = [];
  const containers: (string | undefined)[] = [];
  let statementStart = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      if (text[i + 2] === '*' && text[i + 3] !== '/') {
        const doc = cleanDoc(text.slice(i + 3, end === -1 ? text.length : end));
        const head = readHead(text, stop);
        const entry = head === undefined ? undefined : describe(head, containers.findLast(Boolean));
        if (entry && doc !== '') docs.push({ ...entry, doc });
      }
      i = stop;
      statementStart = i;
    } else if (char === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
      statementStart = i;
    } else if (char === '"' || char === "'" || char === '`') {
      i = skipString(text, i);
    } else if (char === '{') {
      containers.push(CONTAINER.exec(text.slice(statementStart, i))?.[1]?.replace(/^['"]|['"]$/g, ''));
      i++;
      statementStart = i;
    } else if (char === '}') {
      containers.pop();
      i++;
      statementStart = i;
    } else {
      if (char === ';') statementStart = i + 1;
      i++;
    }
  }
  return docs;
}

function skipString(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function cleanDoc(raw: string): string {
  return raw
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** The declaration after a doc comment, up to its body, its `;`, or the end of its line. */
function readHead(text: string, from: number): string | undefined {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  if (text.startsWith('/*', i) || text.startsWith('//', i)) return undefined;
  let depth = 0;
  let head = '';
  for (; i < text.length && head.length < MAX_SIGNATURE; i++) {
    const char = text[i] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      const end = skipString(text, i);
      head += text.slice(i, end);
      i = end - 1;
      continue;
    }
    if (char === '=' && text[i + 1] === '>') {
      head += '=>';
      i++;
      continue;
    }
    if ('(<['.includes(char)) depth++;
    else if (')>]'.includes(char)) depth = Math.max(0, depth - 1);
    else if (depth === 0 && (char === ';' || char === '{' || char === '}' || char === ',')) break;
    else if (
      depth === 0 &&
      char === '\n' &&
      !/[=|&:(<,]\s*$/.test(head) &&
      !/^\s*[|&]/.test(text.slice(i + 1, i + 40))
    )
      break;
    head += char;
  }
  // Folded to one line as a person would write it: no space inside brackets, no trailing comma, no leading `|`.
  const folded = head
    .replace(/\s+/g, ' ')
    .replace(/([([<]) (?:\| )?/g, '$1')
    .replace(/,? ([)\]>])/g, '$1')
    .replace(/: \| /g, ': ')
    .trim();
  return folded === '' ? undefined : folded;
}

function describe(head: string, parent: string | undefined): Omit<DeclarationDoc, 'doc'> | undefined {
  const signature = head.replace(/^export\s+(?:declare\s+)?|^declare\s+/, '');
  const top = TOP_LEVEL.exec(head);
  if (top?.[2]) return { name: parent ? `${parent}.${top[2]}` : top[2], signature };
  const member = MEMBER.exec(head);
  if (!member?.[1] || parent === undefined) return undefined;
  return { name: `${parent}.${member[1]}`, signature: `${parent}.${signature}` };
}

// Relative module specifiers, and `/// <reference path>` (relative even without `./`, as @types/node writes it).
const RELATIVE =
  /(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]|^\/\/\/\s*<reference\s+path\s*=\s*['"]([^'"/][^'"]*)['"]/gm;

/** The declaration files a declaration file re-exports or imports by relative path, resolved on disk. */
export function relativeDeclarationFiles(text: string, file: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(RELATIVE)) {
    const resolved = resolveDeclaration(join(dirname(file), match[1] ?? match[2] ?? ''));
    if (resolved !== undefined && !found.includes(resolved)) found.push(resolved);
  }
  return found;
}

/** A module path as its declaration file: `./x.js` → `./x.d.ts`, `./dir` → `./dir/index.d.ts`. */
export function resolveDeclaration(path: string): string | undefined {
  const base = normalize(path);
  const candidates = /\.d\.[cm]?ts$/.test(base)
    ? [base]
    : /\.[cm]?js$/.test(base)
      ? [base.replace(/\.(c|m)?js$/, '.d.$1ts')]
      : [`${base}.d.ts`, `${base}.d.mts`, `${base}.d.cts`, join(base, 'index.d.ts')];
  return candidates.find((candidate) => existsSync(candidate));
}
