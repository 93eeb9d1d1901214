import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { STATE_DIR } from '../mcp/docs/docs-index.js';

const STATE = STATE_DIR.replace('.', '\\.');
const IGNORES_STATE = new RegExp(`^/?${STATE}/?\\s*$`, 'm');
// In a parent folder's .gitignore only a pattern without a leading slash matches the folder at any depth.
const IGNORES_STATE_BELOW = new RegExp(`^(?:\\*\\*/)?${STATE}/?\\s*$`, 'm');

/**
 * A `.gitignore` text that ignores the assist state folder (`.assist/`: the documentation index, browser
 * logs): the text as it is when a line already ignores it, else with one line added (a new file when null).
 */
export function ignoreStateDir(text: string | null): string {
  if (text !== null && IGNORES_STATE.test(text)) return text;
  const before = text === null || text === '' ? '' : text.endsWith('\n') ? `${text}\n` : `${text}\n\n`;
  return `${before}# assist state (documentation index, browser logs)\n${STATE_DIR}/\n`;
}

/** Whether a `.gitignore` of a parent folder, up to the repository root, already ignores `.assist/` everywhere. */
export function ignoredAbove(root: string): boolean {
  let dir = root;
  while (!existsSync(join(dir, '.git'))) {
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
    const file = join(dir, '.gitignore');
    if (existsSync(file) && IGNORES_STATE_BELOW.test(readFileSync(file, 'utf8'))) return true;
  }
  return false;
}
