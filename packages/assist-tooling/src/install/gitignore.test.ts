import { describe, expect, it } from 'vitest';
import { ignoreStateDir } from './gitignore.js';

describe('ignoreStateDir', () => {
  it('creates a .gitignore holding .assist/ when there is none', () => {
    expect(ignoreStateDir(null)).toBe('# assist state (documentation index, browser logs)\n.assist/\n');
  });

  it('adds .assist/ once after the existing lines, and leaves a file that ignores it already as it is', () => {
    const once = ignoreStateDir('node_modules/\ndist/');
    expect(once).toBe(
      'node_modules/\ndist/\n\n# assist state (documentation index, browser logs)\n.assist/\n',
    );
    expect(ignoreStateDir(once)).toBe(once);
    expect(ignoreStateDir('/.assist\n')).toBe('/.assist\n');
    expect(ignoreStateDir('.assistant/\n')).toContain('\n.assist/\n');
  });
});
