import { describe, expect, it } from 'vitest';
import { formatTokenReport } from './token-report.js';

describe('formatTokenReport', () => {
  const sections = [
    { key: 'foundation', tokens: 400 },
    { key: 'react/v19/core', tokens: 500 },
    { key: 'node/core', tokens: 300 },
    { key: 'pg/v8/core', tokens: 100 },
  ];

  it('lists every section, largest first, under its file', () => {
    const report = formatTokenReport([{ path: 'CLAUDE.md', tokens: 1300, sections }]);
    expect(report.split('\n').map((line) => line.trim().split(/ +/)[0])).toEqual([
      'Context',
      'CLAUDE.md',
      'react/v19/core',
      'foundation',
      'node/core',
      'pg/v8/core',
    ]);
  });

  it('warns over the budget and names the three largest sections', () => {
    const report = formatTokenReport([{ path: 'CLAUDE.md', tokens: 1300, sections, budget: 1000 }]);
    expect(report).toContain(
      'Over the 1000-token budget by 300; the largest sections are react/v19/core, foundation, node/core',
    );
  });

  it('says nothing of the budget when the file stays under it', () => {
    const report = formatTokenReport([{ path: 'CLAUDE.md', tokens: 900, sections, budget: 1000 }]);
    expect(report).not.toContain('budget');
  });
});
