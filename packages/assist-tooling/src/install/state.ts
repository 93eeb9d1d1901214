import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AssistError, fail, ok, type Result } from '../errors.js';

/** The file in the project root where `assist install` records its choices for `assist update`. */
export const STATE_FILE = 'assist.json';

const stateSchema = z.object({
  agents: z.array(z.string()).default([]),
  /** Packages whose resources are composed (first-party ones and third-party ones the user accepted). */
  packages: z.array(z.string()).default([]),
  /** Third-party packages the user was offered and turned down. */
  declined: z.array(z.string()).default([]),
  guidelines: z.boolean().default(true),
  mcp: z.boolean().default(true),
  /** Skill names installed last time, so removed skills can be deleted. */
  skills: z.array(z.string()).default([]),
  /** Rule files written last time, so rules that went away can be deleted. */
  rules: z.array(z.string()).default([]),
});

/** What `assist install` chose, as stored in `assist.json`. */
export type AssistState = z.infer<typeof stateSchema>;

/** Parses the text of `assist.json`. */
export function parseState(text: string): Result<AssistState> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return fail(new AssistError('state_invalid', `${STATE_FILE} is not valid JSON.`, { cause: error }));
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    return fail(new AssistError('state_invalid', `${STATE_FILE} has unexpected values at ${where}.`));
  }
  return ok(parsed.data);
}

/** Renders a state as the stable, sorted JSON stored in `assist.json`. */
export function serializeState(state: AssistState): string {
  const sorted = (list: readonly string[]): string[] => [...new Set(list)].sort();
  const out: AssistState = {
    agents: [...state.agents],
    packages: sorted(state.packages),
    declined: sorted(state.declined),
    guidelines: state.guidelines,
    mcp: state.mcp,
    skills: sorted(state.skills),
    rules: sorted(state.rules),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Reads the project's `assist.json`: undefined before the first `assist install`. */
export function readState(root: string): Result<AssistState | undefined> {
  const path = join(root, STATE_FILE);
  if (!existsSync(path)) return ok(undefined);
  const parsed = parseState(readFileSync(path, 'utf8'));
  return parsed.ok ? ok(parsed.value) : parsed;
}
