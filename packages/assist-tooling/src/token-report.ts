/** The estimated size of one generated file and of each of its sections. */
export interface TokenReportEntry {
  path: string;
  tokens: number;
  sections: { key: string; tokens: number }[];
}

/** A rough token count (about four characters a token), enough to show which guideline costs most. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Formats the token report printed after an install, largest sections first within each file. */
export function formatTokenReport(entries: readonly TokenReportEntry[]): string {
  if (entries.length === 0) return '';
  const rows: [string, number][] = [];
  for (const entry of entries) {
    rows.push([entry.path, entry.tokens]);
    const sections = [...entry.sections].sort((a, b) => b.tokens - a.tokens || a.key.localeCompare(b.key));
    for (const section of sections) rows.push([`  ${section.key}`, section.tokens]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, tokens]) => `  ${label.padEnd(width)}  ${String(tokens).padStart(6)}`);
  return ['Context size (estimated tokens):', ...lines].join('\n');
}
