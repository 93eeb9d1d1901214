/** The tag around generated guidelines in an agent's guideline file. */
export const GUIDELINES_TAG = 'assist-guidelines';

/**
 * Puts generated content between `<tag>` and `</tag>` in a file, keeping everything the user wrote
 * outside the markers; a file without markers gets the block appended after its own text.
 */
export function replaceManagedBlock(existing: string | null, content: string, tag = GUIDELINES_TAG): string {
  const block = `<${tag}>\n${content.trim()}\n</${tag}>`;
  if (existing === null || existing.trim() === '') return `${block}\n`;
  const open = existing.indexOf(`<${tag}>`);
  const close = existing.indexOf(`</${tag}>`, open);
  if (open !== -1 && close !== -1) {
    return existing.slice(0, open) + block + existing.slice(close + tag.length + 3);
  }
  return `${existing.replace(/\s+$/, '')}\n\n${block}\n`;
}
