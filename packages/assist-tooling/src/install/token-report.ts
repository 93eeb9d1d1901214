/** The estimated size of one generated file and of each of its sections. */
export interface TokenReportEntry {
  path: string;
  tokens: number;
  sections: { key: string; tokens: number }[];
  /** A size the file should stay under; the report warns when it is exceeded. */
  budget?: number;
}

/** What the always-loaded guidelines of a typical app should stay under, in estimated tokens. */
export const GUIDELINE_BUDGET = 1000;

/** A rough token count (about four characters a token), enough to show which guideline costs most. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Formats the token report printed after an install, largest sections first within each file. */
export function formatTokenReport(entries: readonly TokenReportEntry[]): string {
  if (entries.length === 0) return '';
  const rows: [string, number][] = [];
  const warnings: string[] = [];
  for (const entry of entries) {
    rows.push([entry.path, entry.tokens]);
    const sections = [...entry.sections].sort((a, b) => b.tokens - a.tokens || a.key.localeCompare(b.key));
    for (const section of sections) rows.push([`  ${section.key}`, section.tokens]);
    if (entry.budget !== undefined && entry.tokens > entry.budget) {
      const largest = sections
        .slice(0, 3)
        .map((section) => section.key)
        .join(', ');
      warnings.push(
        `Over the ${entry.budget}-token budget by ${entry.tokens - entry.budget}; the largest sections are ` +
          `${largest} (drop one with guidelines.exclude, or override it in .ai/guidelines).`,
      );
    }
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, tokens]) => `  ${label.padEnd(width)}  ${String(tokens).padStart(6)}`);
  return ['Context size (estimated tokens):', ...lines, ...warnings.map((line) => `  ${line}`)].join('\n');
}
