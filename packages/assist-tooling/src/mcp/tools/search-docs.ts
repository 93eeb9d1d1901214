import { z } from 'zod';
import { jsonResult } from '../tool-result.js';
import { defineTool } from './tool.js';

const MAX_HEADING = 160;

export const searchDocs = defineTool({
  name: 'search-docs',
  title: 'Search package docs',
  description:
    "Searches the documentation of the project's installed packages at their exact versions: READMEs, docs/ " +
    'Markdown, the CHANGELOG section of the installed version and the JSDoc of exported declarations. Use it ' +
    'before writing code against a dependency. Each hit gives package, version, file, heading, a snippet and a ' +
    'resource URI for the whole file.',
  input: {
    query: z.string().min(1).max(500).describe('Words to look for, e.g. "cookie options" or "createClient".'),
    packages: z
      .array(z.string().min(1))
      .max(50)
      .optional()
      .describe('Only search these packages (e.g. ["express", "pino"]).'),
    scope: z
      .enum(['direct', 'all'])
      .default('direct')
      .describe('"direct": packages named in package.json (default); "all": every installed package.'),
    limit: z.number().int().positive().max(30).default(8).describe('How many hits (at most 30).'),
  },
  readOnly: true,
  run: async ({ query, packages, scope, limit }, context) => {
    const answer = await context.docs.search(query, { scope, limit, ...(packages ? { packages } : {}) });
    const hits = answer.hits.map((hit) => ({
      ...hit,
      heading: hit.heading.length > MAX_HEADING ? `${hit.heading.slice(0, MAX_HEADING)}…` : hit.heading,
    }));
    const { packages: count, fromCache, builtAt } = answer.index;
    return jsonResult({
      hits,
      ...(answer.notes.length > 0 ? { notes: answer.notes } : {}),
      index: { scope, packages: count, fromCache, builtAt },
    });
  },
});
