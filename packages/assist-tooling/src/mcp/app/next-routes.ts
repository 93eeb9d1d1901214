import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppRoute } from './routes-in-app.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Folders Next.js never routes: `_private` ones (app router). */
const isPrivate = (segments: string[]) => segments.some((segment) => segment.startsWith('_'));

/** Turns a Next.js folder path into a URL path: `(groups)` and `@slots` dropped, `[id]` → `:id`. */
function urlPath(segments: string[]): string {
  const kept = segments
    .filter((segment) => !/^\(.*\)$/.test(segment) && !segment.startsWith('@'))
    .map((segment) =>
      segment
        .replace(/^\[\[\.\.\.(\w+)\]\]$/, ':$1*')
        .replace(/^\[\.\.\.(\w+)\]$/, ':$1+')
        .replace(/^\[(\w+)\]$/, ':$1'),
    );
  return `/${kept.join('/')}`.replace(/\/index$/, '') || '/';
}

/** Reads a Next.js app's routes from the file system (`app/` and `pages/`, with or without `src/`). */
export function listNextRoutes(root: string): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const base of ['app', 'src/app']) {
    const dir = join(root, base);
    for (const file of files(dir)) {
      const parts = relative(dir, file).split(/[\\/]/);
      const name = parts.pop() ?? '';
      if (isPrivate(parts)) continue;
      if (/^page\.(t|j)sx?$/.test(name))
        routes.push({ method: 'GET', path: urlPath(parts), handler: `${base}/${relative(dir, file)}` });
      if (/^route\.(t|j)s$/.test(name)) {
        const text = readFileSync(file, 'utf8');
        for (const method of METHODS) {
          // `export async function GET`, `export const GET =`, or `export { handler as GET }`.
          const declared = new RegExp(`export\\s+(async\\s+)?(function|const|let)\\s+${method}\\b`);
          const listed = new RegExp(`export\\s*\\{[^}]*\\b${method}\\b[^}]*\\}`);
          if (declared.test(text) || listed.test(text)) {
            routes.push({ method, path: urlPath(parts), handler: `${base}/${relative(dir, file)}` });
          }
        }
      }
    }
  }
  for (const base of ['pages', 'src/pages']) {
    const dir = join(root, base);
    for (const file of files(dir)) {
      const rel = relative(dir, file);
      if (!/\.(t|j)sx?$/.test(rel) || /(^|[\\/])_(app|document|error)\./.test(rel)) continue;
      const parts = rel.replace(/\.(t|j)sx?$/, '').split(/[\\/]/);
      routes.push({
        method: parts[0] === 'api' ? 'ALL' : 'GET',
        path: urlPath(parts),
        handler: `${base}/${rel}`,
      });
    }
  }
  // The file system lists folders in no fixed order: sort so answers are the same on every machine.
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
