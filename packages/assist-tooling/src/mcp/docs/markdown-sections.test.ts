import { describe, expect, it } from 'vitest';
import { changelogSection, splitMarkdown } from './markdown-sections.js';

describe('splitMarkdown', () => {
  it('splits at ATX and setext headings with their trail, not at # lines in code fences', () => {
    const sections = splitMarkdown(
      'Intro\n\n# Title\n\n## Use `it`\n\n```sh\n# a comment\n```\n\nOptions\n-------\n\ntext\n',
    );
    expect(sections).toEqual([
      { trail: [], level: 0, body: 'Intro' },
      { trail: ['Title'], level: 1, body: '' },
      { trail: ['Title', 'Use it'], level: 2, body: '```sh\n# a comment\n```' },
      { trail: ['Title', 'Options'], level: 2, body: 'text' },
    ]);
  });
});

describe('changelogSection', () => {
  it('takes the section of the installed version with what is nested under it', () => {
    const text = '# Changelog\n\n## [2.1.0] - 2026-01-02\n\n### Added\n\n- b\n\n## 2.0.0\n\n- a\n';
    expect(changelogSection(text, '2.1.0')?.body).toBe('### Added\n- b');
    expect(changelogSection(text, '2.0.0')?.body).toBe('- a');
    expect(changelogSection(text, '2.1')).toBeUndefined();
  });

  it("reads express's setext History.md and v-prefixed headings, not prereleases of the version", () => {
    const history =
      '5.1.0 / 2025-03-31\n==================\n\n* Add support for `Uint8Array`\n\n5.1.0-beta.1\n=====\n\n* beta\n';
    expect(changelogSection(history, '5.1.0')?.body).toBe('* Add support for `Uint8Array`');
    expect(changelogSection('## v3.0.0\n\nbig', '3.0.0')?.body).toBe('big');
  });
});
