import { z } from 'zod';
import { BROWSER_LOG_FILE, readBrowserEntries } from '../../browser/log-store.js';
import { jsonResult } from '../tool-result.js';
import { defineTool } from './tool.js';

export const browserLogs = defineTool({
  name: 'browser-logs',
  title: 'Browser logs',
  description:
    'The latest console entries, errors and unhandled rejections from the browser (level, message, stack, URL, time), ' +
    'collected by the watcher script in development. Newest last.',
  input: {
    entries: z.number().int().positive().max(100).default(20).describe('How many entries (at most 100).'),
    level: z
      .enum(['debug', 'info', 'warn', 'error'])
      .optional()
      .describe('Only entries at this level or above.'),
  },
  readOnly: true,
  run: ({ entries, level }, context) => {
    const order = ['debug', 'info', 'warn', 'error'];
    const floor = level === undefined ? 0 : order.indexOf(level);
    const all = readBrowserEntries(context.root).filter((entry) => order.indexOf(entry.level) >= floor);
    if (all.length === 0) {
      return jsonResult({
        entries: [],
        note: `Nothing in ${BROWSER_LOG_FILE} yet. The watcher runs in development with browser_logs_watcher on, through assistHono, assistExpress or assistVite.`,
      });
    }
    return jsonResult({ entries: all.slice(-entries), total: all.length });
  },
});
