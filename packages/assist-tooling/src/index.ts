export {
  Agent,
  type AgentClass,
  type AgentFile,
  AgentRegistry,
  BUILT_IN_AGENTS,
  createAgentRegistry,
  type McpCommand,
  type SupportsGuidelines,
  type SupportsMcp,
  type SupportsScopedRules,
  type SupportsSkills,
  supportsGuidelines,
  supportsMcp,
  supportsScopedRules,
  supportsSkills,
} from './agents.js';
export {
  BROWSER_LOG_FILE,
  BROWSER_LOGS_PATH,
  type BrowserLogEntry,
  browserLogsEnabled,
  handleBrowserLogs,
  isPublicAssistRoute,
  readBrowserEntries,
  shouldSkipCsrf,
} from './browser-logs.js';
export {
  assistExpress,
  assistHono,
  assistVite,
  type BrowserLogsOptions,
  type HonoLikeContext,
  type VitePluginLike,
} from './browser-middleware.js';
export { browserWatcherScript, injectBrowserWatcher } from './browser-watcher.js';
export {
  type ComposedGuidelines,
  composeGuidelines,
  type GuidelineSection,
  loadSkill,
  type ScopedRule,
  type Skill,
} from './compose.js';
export { type AssistConfig, assistConfigSchema, loadConfig, parseConfig } from './config.js';
export {
  type DatabaseConnection,
  type DatabaseEngine,
  describeConnection,
  findDatabaseConnections,
} from './database-connections.js';
export {
  type DocHit,
  type DocKind,
  type DocsAnswer,
  type DocsIndexInfo,
  type DocsQuery,
  type DocsScope,
  DocsSearch,
} from './docs-index.js';
export { type DoctorCheck, formatDoctorReport, runDoctor } from './doctor.js';
export { AssistError, type AssistErrorCode, isAssistError, type Result } from './errors.js';
export { type Prompter, type RunOptions, type RunReport, runAssist } from './install.js';
export { type LogEntry, parseLog, readLogEntries } from './log-files.js';
export { type CliIo, main, shouldPrompt } from './main.js';
export { replaceManagedBlock } from './markers.js';
export { mergeJsonConfig, mergeTomlTable } from './mcp-config.js';
export { GUIDELINES_URI } from './mcp-resources.js';
export { ASSIST_TOOLS, createAssistServer, enabledTools, MCP_SERVER_NAME } from './mcp-server.js';
export { type FileChange, renderDiff } from './plan.js';
export type { PluginApi, PluginModule } from './plugins.js';
export { type InstalledPackage, type Project, readProject } from './project.js';
export { type ScopedBlock, splitScoped } from './scoped.js';
export { renderTemplate, type TemplateHelper } from './template.js';
export type { AssistTool, ToolContext } from './tools/tool.js';
