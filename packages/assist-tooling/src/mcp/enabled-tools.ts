import type { AssistConfig } from '../config.js';
import { execute, getRoute, listRoutes } from './tools/app-code.js';
import { applicationInfo } from './tools/application-info.js';
import { browserLogs } from './tools/browser-logs.js';
import { databaseConnections, databaseQuery, databaseSchema } from './tools/database.js';
import { lastError, readLogEntriesTool } from './tools/logs.js';
import { configRead, currentTime, getAbsoluteUrl, listCommands } from './tools/project-tools.js';
import { searchDocs } from './tools/search-docs.js';
import type { AssistTool } from './tools/tool.js';

/** Every tool the server can offer, in the order clients list them. */
export const ASSIST_TOOLS: readonly AssistTool[] = [
  applicationInfo,
  browserLogs,
  configRead,
  currentTime,
  databaseConnections,
  databaseQuery,
  databaseSchema,
  execute,
  getAbsoluteUrl,
  getRoute,
  lastError,
  listCommands,
  listRoutes,
  readLogEntriesTool,
  searchDocs,
];

/** The tools a config turns on: opt-in ones only when enabled, then `mcp.tools.include` / `exclude`. */
export function enabledTools(config: AssistConfig): AssistTool[] {
  const { include, exclude } = config.mcp.tools;
  return ASSIST_TOOLS.filter(
    (tool) =>
      (tool.optIn === undefined || tool.optIn(config)) &&
      (include.length === 0 || include.includes(tool.name)) &&
      !exclude.includes(tool.name),
  );
}
