import { STATE_DIR } from './docs-index.js';

const IGNORES_STATE = new RegExp(`^/?${STATE_DIR.replace('.', '\\.')}/?\\s*$`, 'm');

/**
 * A `.gitignore` text that ignores the assist state folder (`.assist/`: the documentation index, browser
 * logs): the text as it is when a line already ignores it, else with one line added (a new file when null).
 */
export function ignoreStateDir(text: string | null): string {
  if (text !== null && IGNORES_STATE.test(text)) return text;
  const before = text === null || text === '' ? '' : text.endsWith('\n') ? `${text}\n` : `${text}\n\n`;
  return `${before}# assist state (documentation index, browser logs)\n${STATE_DIR}/\n`;
}
