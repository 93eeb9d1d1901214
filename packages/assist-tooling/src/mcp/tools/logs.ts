import { z } from 'zod';
import { LOG_LEVELS, readLogEntries } from '../log-files.js';
import { jsonResult } from '../tool-result.js';
import { defineTool } from './tool.js';

export const readLogEntriesTool = defineTool({
  name: 'read-log-entries',
  title: 'Read log entries',
  description:
    "The last N entries of the app's log files (pino, winston, plain text), oldest first, optionally from a level up.",
  input: {
    entries: z.number().int().positive().max(200).default(20).describe('How many entries (at most 200).'),
    level: z.enum(LOG_LEVELS).optional().describe('Only entries at this level or above.'),
  },
  readOnly: true,
  run: ({ entries, level }, context) => {
    const floor = level === undefined ? 0 : LOG_LEVELS.indexOf(level);
    const all = readLogEntries(context.root, context.config.logs).filter(
      (entry) => LOG_LEVELS.indexOf(entry.level) >= floor,
    );
    if (all.length === 0)
      return jsonResult({
        entries: [],
        note: 'No log entries found (logs/*.log, storage/logs, *.log or assist.config logs).',
      });
    return jsonResult({ entries: all.slice(-entries), total: all.length });
  },
});

export const lastError = defineTool({
  name: 'last-error',
  title: 'Last error',
  description: "The most recent error in the app's log files, with its stack.",
  input: {},
  readOnly: true,
  run: (_args, context) => {
    const last = readLogEntries(context.root, context.config.logs)
      .filter((entry) => entry.level === 'error' || entry.level === 'fatal')
      .at(-1);
    return jsonResult(last ?? { error: null, note: 'No error found in the log files.' });
  },
});
