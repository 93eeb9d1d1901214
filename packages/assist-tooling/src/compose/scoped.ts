/** A `@scoped([globs]) … @endscoped` block found in a guideline. */
export interface ScopedBlock {
  globs: string[];
  body: string;
}

/** A guideline split into its scoped blocks and the text around them. */
export interface ScopedSplit {
  /** The text with every scoped block removed (used when blocks become rule files). */
  outside: string;
  /**
   * The text with the markers removed and the bodies kept in place (used when rules stay inline); each
   * body keeps its file patterns on a heading line, appended to its own first heading when it has one.
   */
  inlined: string;
  blocks: ScopedBlock[];
}

const OPEN = /^[ \t]*@scoped\((.*)\)[ \t]*$/;
const CLOSE = /^[ \t]*@endscoped[ \t]*$/;
const FENCE = /^[ \t]*(```|~~~)/;

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*$/;

/** A scoped body as it reads inline: its globs named on its first heading, or on a heading of their own. */
function withPatterns(body: readonly string[], globs: readonly string[]): string[] {
  if (globs.length === 0) return [...body];
  const patterns = globs.map((glob) => `\`${glob}\``).join(', ');
  const first = body.findIndex((line) => line.trim() !== '');
  const heading = first === -1 ? null : HEADING.exec(body[first] ?? '');
  if (heading) {
    const lines = [...body];
    lines[first] = `${heading[1]} ${heading[2]} (${patterns})`;
    return lines;
  }
  return [`### For ${patterns}`, ...body];
}

function parseGlobs(args: string): string[] {
  return [...args.matchAll(/(['"])(.*?)\1/g)].map((match) => match[2] ?? '').filter((glob) => glob !== '');
}

/**
 * Finds `@scoped` blocks outside code fences; nested blocks are flattened into their outermost parent,
 * whose globs apply to the whole body, and an unclosed block runs to the end of the text.
 */
export function splitScoped(text: string): ScopedSplit {
  const outside: string[] = [];
  const inlined: string[] = [];
  const blocks: ScopedBlock[] = [];
  let fence = false;
  let depth = 0;
  let current: ScopedBlock | undefined;
  let body: string[] = [];
  const finish = (): void => {
    if (current) {
      blocks.push({ globs: current.globs, body: body.join('\n').trim() });
      inlined.push(...withPatterns(body, current.globs));
    }
    current = undefined;
    body = [];
  };
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fence = !fence;
    const open = fence ? null : OPEN.exec(line);
    if (open) {
      depth += 1;
      if (depth === 1) current = { globs: parseGlobs(open[1] ?? ''), body: '' };
      continue;
    }
    if (!fence && depth > 0 && CLOSE.test(line)) {
      depth -= 1;
      if (depth === 0) finish();
      continue;
    }
    if (depth > 0) body.push(line);
    else {
      outside.push(line);
      inlined.push(line);
    }
  }
  finish();
  return { outside: outside.join('\n'), inlined: inlined.join('\n'), blocks };
}
