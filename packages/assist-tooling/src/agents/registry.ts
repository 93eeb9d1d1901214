import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ScopedRule } from '../compose/compose.js';
import { AssistError } from '../errors.js';

/** The command an agent runs to start the `assist` MCP server. */
export interface McpCommand {
  command: string;
  args: string[];
  /** The same command with every path made absolute, for agents that start servers elsewhere. */
  absolute: { command: string; args: string[] };
}

/** A file an agent needs, relative to the project root. */
export interface AgentFile {
  path: string;
  content: string;
}

/**
 * The base of every agent writer: a name used on the command line and in `assist.json`, and the project
 * paths that suggest the agent is in use. What an agent can receive is declared by implementing
 * {@link SupportsGuidelines}, {@link SupportsSkills}, {@link SupportsMcp} or {@link SupportsScopedRules}.
 */
export abstract class Agent {
  abstract readonly name: string;
  abstract readonly displayName: string;

  /** Files or folders whose presence in a project suggests the agent is used there. */
  detectionPaths(): string[] {
    return [];
  }
}

/** An agent that reads an always-on guideline file. */
export interface SupportsGuidelines {
  guidelinesPath(): string;
}

/** An agent that loads Agent Skills folders from a project folder. */
export interface SupportsSkills {
  skillsPath(): string;
}

/** An agent that reads MCP servers from a project config file (JSON, JSONC or TOML). */
export interface SupportsMcp {
  mcpConfigPath(root: string): string;
  mcpFormat(): 'json' | 'toml';
  /** Where the server entry sits in the config, e.g. `['mcpServers', 'assist']`. */
  mcpServerPath(name: string): string[];
  mcpServerEntry(server: McpCommand): Record<string, unknown>;
  /** Keys a new config file starts with. */
  mcpConfigSeed?(): Record<string, unknown>;
}

/** An agent with its own format for rules that apply only to files matching globs. */
export interface SupportsScopedRules {
  scopedRuleFiles(rules: readonly ScopedRule[]): AgentFile[];
}

/** Tells whether an agent writes a guideline file. */
export function supportsGuidelines(agent: Agent): agent is Agent & SupportsGuidelines {
  return typeof (agent as Partial<SupportsGuidelines>).guidelinesPath === 'function';
}

/** Tells whether an agent receives skills. */
export function supportsSkills(agent: Agent): agent is Agent & SupportsSkills {
  return typeof (agent as Partial<SupportsSkills>).skillsPath === 'function';
}

/** Tells whether an agent receives MCP configuration. */
export function supportsMcp(agent: Agent): agent is Agent & SupportsMcp {
  const candidate = agent as Partial<SupportsMcp>;
  return typeof candidate.mcpConfigPath === 'function' && typeof candidate.mcpServerEntry === 'function';
}

/** Tells whether an agent has a native scoped-rule format. */
export function supportsScopedRules(agent: Agent): agent is Agent & SupportsScopedRules {
  return typeof (agent as Partial<SupportsScopedRules>).scopedRuleFiles === 'function';
}

const quoted = (globs: readonly string[]): string =>
  globs.map((glob) => `  - ${JSON.stringify(glob)}`).join('\n');

/** A rule file with `paths:` front matter, the shape Claude Code and `.ai/rules` use. */
export function pathsRuleFile(rule: ScopedRule): string {
  return `---\npaths:\n${quoted(rule.globs)}\n---\n\n${rule.body}\n`;
}

const plainEntry = (server: McpCommand): Record<string, unknown> => ({
  command: server.command,
  args: server.args,
});

/** Where a built-in agent reads things, relative to the project root. */
interface AgentLayout {
  detect: string[];
  guidelines: string;
  skills: string;
  mcp: string;
  /** The top-level key holding MCP servers (`mcpServers`, `servers`, `mcp_servers` …). */
  mcpKey: string;
  format?: 'json' | 'toml';
}

/** The shared shape of the built-in agents: a guideline file, a skills folder and an MCP config file. */
abstract class FileAgent extends Agent implements SupportsGuidelines, SupportsSkills, SupportsMcp {
  protected abstract readonly layout: AgentLayout;

  override detectionPaths() {
    return this.layout.detect;
  }
  guidelinesPath() {
    return this.layout.guidelines;
  }
  skillsPath() {
    return this.layout.skills;
  }
  mcpConfigPath(_root: string) {
    return this.layout.mcp;
  }
  mcpFormat() {
    return this.layout.format ?? 'json';
  }
  mcpServerPath(name: string) {
    return [this.layout.mcpKey, name];
  }
  mcpServerEntry(server: McpCommand): Record<string, unknown> {
    return plainEntry(server);
  }
}

class ClaudeCode extends FileAgent implements SupportsScopedRules {
  readonly name = 'claude_code';
  readonly displayName = 'Claude Code';
  protected readonly layout = {
    detect: ['CLAUDE.md', '.claude', '.mcp.json'],
    guidelines: 'CLAUDE.md',
    skills: '.claude/skills',
    mcp: '.mcp.json',
    mcpKey: 'mcpServers',
  };
  override mcpServerEntry(server: McpCommand) {
    return { type: 'stdio', ...plainEntry(server) };
  }
  scopedRuleFiles(rules: readonly ScopedRule[]) {
    return rules.map((rule) => ({
      path: `.claude/rules/assist/${rule.slug}.md`,
      content: pathsRuleFile(rule),
    }));
  }
}

class Codex extends FileAgent {
  readonly name = 'codex';
  readonly displayName = 'Codex';
  protected readonly layout = {
    detect: ['.codex'],
    guidelines: 'AGENTS.md',
    skills: '.agents/skills',
    mcp: '.codex/config.toml',
    mcpKey: 'mcp_servers',
    format: 'toml' as const,
  };
}

class Cursor extends FileAgent implements SupportsScopedRules {
  readonly name = 'cursor';
  readonly displayName = 'Cursor';
  protected readonly layout = {
    detect: ['.cursor'],
    guidelines: 'AGENTS.md',
    skills: '.cursor/skills',
    mcp: '.cursor/mcp.json',
    mcpKey: 'mcpServers',
  };
  scopedRuleFiles(rules: readonly ScopedRule[]) {
    return rules.map((rule) => ({
      path: `.cursor/rules/assist/${rule.slug}.mdc`,
      content: `---\ndescription: ${JSON.stringify(rule.title)}\nglobs: ${rule.globs.join(',')}\nalwaysApply: false\n---\n\n${rule.body}\n`,
    }));
  }
}

class Copilot extends FileAgent implements SupportsScopedRules {
  readonly name = 'copilot';
  readonly displayName = 'GitHub Copilot (VS Code)';
  protected readonly layout = {
    detect: ['.github/copilot-instructions.md', '.vscode/mcp.json'],
    guidelines: '.github/copilot-instructions.md',
    skills: '.github/skills',
    mcp: '.vscode/mcp.json',
    mcpKey: 'servers',
  };
  override mcpServerEntry(server: McpCommand) {
    return { type: 'stdio', ...plainEntry(server) };
  }
  scopedRuleFiles(rules: readonly ScopedRule[]) {
    return rules.map((rule) => ({
      path: `.github/instructions/assist-${rule.slug}.instructions.md`,
      content: `---\napplyTo: ${JSON.stringify(rule.globs.join(','))}\n---\n\n${rule.body}\n`,
    }));
  }
}

class Gemini extends FileAgent {
  readonly name = 'gemini';
  readonly displayName = 'Gemini CLI';
  protected readonly layout = {
    detect: ['GEMINI.md', '.gemini'],
    guidelines: 'GEMINI.md',
    skills: '.gemini/skills',
    mcp: '.gemini/settings.json',
    mcpKey: 'mcpServers',
  };
}

class OpenCode extends FileAgent {
  readonly name = 'opencode';
  readonly displayName = 'OpenCode';
  protected readonly layout = {
    detect: ['opencode.json', 'opencode.jsonc', '.opencode'],
    guidelines: 'AGENTS.md',
    skills: '.agents/skills',
    mcp: 'opencode.json',
    mcpKey: 'mcp',
  };
  override mcpConfigPath(root: string) {
    return existsSync(join(root, 'opencode.jsonc')) ? 'opencode.jsonc' : 'opencode.json';
  }
  override mcpServerEntry(server: McpCommand) {
    return { type: 'local', command: [server.command, ...server.args], enabled: true };
  }
  mcpConfigSeed() {
    return { $schema: 'https://opencode.ai/config.json' };
  }
}

class Junie extends FileAgent {
  readonly name = 'junie';
  readonly displayName = 'Junie';
  protected readonly layout = {
    detect: ['.junie'],
    guidelines: 'AGENTS.md',
    skills: '.junie/skills',
    mcp: '.junie/mcp/mcp.json',
    mcpKey: 'mcpServers',
  };
  // Junie starts MCP servers outside the project folder, so relative paths would not resolve.
  override mcpServerEntry(server: McpCommand) {
    return plainEntry({ ...server, ...server.absolute });
  }
}

class Zed extends FileAgent {
  readonly name = 'zed';
  readonly displayName = 'Zed';
  protected readonly layout = {
    detect: ['.zed'],
    guidelines: 'AGENTS.md',
    skills: '.agents/skills',
    mcp: '.zed/settings.json',
    mcpKey: 'context_servers',
  };
}

/** A class of agent that can be registered by name. */
export type AgentClass = new () => Agent;

/** Agents by name: the built-in ones and any registered by plugins. */
export class AgentRegistry {
  readonly #agents = new Map<string, Agent>();

  /**
   * Adds an agent under a name (replacing a built-in one of the same name).
   * @throws {AssistError} `agent_unknown` when the class does not extend {@link Agent}.
   */
  register(name: string, agentClass: AgentClass): void {
    const agent: unknown = new agentClass();
    if (!(agent instanceof Agent)) {
      throw new AssistError('agent_unknown', `Agent "${name}" must be a class that extends Agent.`);
    }
    this.#agents.set(name, agent);
  }

  get(name: string): Agent | undefined {
    return this.#agents.get(name);
  }

  names(): string[] {
    return [...this.#agents.keys()];
  }
}

/** The agents `assist` knows out of the box, by name. */
export const BUILT_IN_AGENTS: Readonly<Record<string, AgentClass>> = {
  claude_code: ClaudeCode,
  codex: Codex,
  cursor: Cursor,
  copilot: Copilot,
  gemini: Gemini,
  opencode: OpenCode,
  junie: Junie,
  zed: Zed,
};

/** Creates a registry holding the built-in agents. */
export function createAgentRegistry(): AgentRegistry {
  const registry = new AgentRegistry();
  for (const [name, agentClass] of Object.entries(BUILT_IN_AGENTS)) registry.register(name, agentClass);
  return registry;
}
