import { describe, expect, it } from 'vitest';
import { splitScoped } from './scoped.js';

describe('splitScoped', () => {
  it('takes a block out of the text and keeps its globs and body', () => {
    const split = splitScoped(
      'Intro\n@scoped([\'src/**/*.ts\', "lib/**"])\n### Rule\nBody\n@endscoped\nOutro',
    );
    expect(split.outside).toBe('Intro\nOutro');
    expect(split.inlined).toBe('Intro\n### Rule (`src/**/*.ts`, `lib/**`)\nBody\nOutro');
    expect(split.blocks).toEqual([{ globs: ['src/**/*.ts', 'lib/**'], body: '### Rule\nBody' }]);
  });

  it('keeps the file patterns on a heading of their own when the block has no heading', () => {
    const split = splitScoped("Intro\n@scoped(['src/routes/**'])\n- One router per file.\n@endscoped");
    expect(split.inlined).toBe('Intro\n### For `src/routes/**`\n- One router per file.');
    expect(split.outside).toBe('Intro');
  });

  it('ignores markers inside code fences', () => {
    const text = "```md\n@scoped(['a/**'])\nexample\n@endscoped\n```";
    expect(splitScoped(text)).toEqual({ outside: text, inlined: text, blocks: [] });
  });

  it('flattens a nested block into its outer block', () => {
    const split = splitScoped("@scoped(['a/**'])\nouter\n@scoped(['b/**'])\ninner\n@endscoped\n@endscoped");
    expect(split.blocks).toEqual([{ globs: ['a/**'], body: 'outer\ninner' }]);
  });
});
