export { mergeJsonConfig, mergeTomlTable } from './agents/mcp-config.js';
export type { PluginApi, PluginModule } from './agents/plugins.js';
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
} from './agents/registry.js';
export {
  BROWSER_LOG_FILE,
  BROWSER_LOGS_PATH,
  type BrowserLogEntry,
  browserLogsEnabled,
  handleBrowserLogs,
  isPublicAssistRoute,
  readBrowserEntries,
  shouldSkipCsrf,
} from './browser/log-store.js';
export {
  assistExpress,
  assistHono,
  assistVite,
  type BrowserLogsOptions,
  type HonoLikeContext,
  type VitePluginLike,
} from './browser/middleware.js';
export { browserWatcherScript, injectBrowserWatcher } from './browser/watcher.js';
export { type DoctorCheck, formatDoctorReport, runDoctor } from './cli/doctor.js';
export { type CliIo, main, shouldPrompt } from './cli/main.js';
export {
  type ComposedGuidelines,
  composeGuidelines,
  type GuidelineSection,
  loadSkill,
  type ScopedRule,
  type Skill,
} from './compose/compose.js';
export { type ScopedBlock, splitScoped } from './compose/scoped.js';
export { renderTemplate, type TemplateHelper } from './compose/template.js';
export { type AssistConfig, assistConfigSchema, loadConfig, parseConfig } from './config.js';
export { AssistError, type AssistErrorCode, isAssistError, type Result } from './errors.js';
export { replaceManagedBlock } from './install/markers.js';
export { type FileChange, renderDiff } from './install/plan.js';
export { type Prompter, type RunOptions, type RunReport, runAssist } from './install/run-assist.js';
export {
  type DatabaseConnection,
  type DatabaseEngine,
  describeConnection,
  findDatabaseConnections,
} from './mcp/database/connections.js';
export {
  type DocHit,
  type DocKind,
  type DocsAnswer,
  type DocsIndexInfo,
  type DocsQuery,
  type DocsScope,
  DocsSearch,
} from './mcp/docs/docs-index.js';
export { ASSIST_TOOLS, enabledTools } from './mcp/enabled-tools.js';
export { type LogEntry, parseLog, readLogEntries } from './mcp/log-files.js';
export { GUIDELINES_URI } from './mcp/resources.js';
export { createAssistServer, MCP_SERVER_NAME } from './mcp/server.js';
export type { AssistTool, ToolContext } from './mcp/tools/tool.js';
export { type InstalledPackage, type Project, readProject } from './project.js';
