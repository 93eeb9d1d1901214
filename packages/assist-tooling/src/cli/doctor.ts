import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { loadPlugins } from '../agents/plugins.js';
import { createAgentRegistry, supportsMcp } from '../agents/registry.js';
import { findPackageResources } from '../compose/sources.js';
import { loadConfig } from '../config.js';
import { AssistError, fail, ok, type Result } from '../errors.js';
import { parseState, STATE_FILE } from '../install/state.js';
import { readProject } from '../project.js';

/** One MCP command found in the agents' configs, and what starting it gave. */
export interface DoctorCheck {
  command: string;
  args: string[];
  /** Where it is configured: `Claude Code (.mcp.json)`. */
  usedBy: string[];
  ok: boolean;
  /** On success: the server's name and version and its tools. */
  server?: { name: string; version: string; tools: string[] };
  /** On failure: what went wrong, in plain words, with the end of the server's stderr. */
  error?: string;
}

interface ConfiguredServer {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

const HANDSHAKE_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 600;

function at(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined,
    value,
  );
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

const stringRecord = (value: unknown): Record<string, string> =>
  value !== null && typeof value === 'object'
    ? Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      )
    : {};

/** Reads an agent's server entry in any of the shapes assist writes (OpenCode's `command` is an array). */
function serverFrom(entry: unknown, where: string): ConfiguredServer | string {
  if (entry === null || typeof entry !== 'object') return `no server at ${where}`;
  const raw = entry as Record<string, unknown>;
  const line = Array.isArray(raw.command) ? strings(raw.command) : undefined;
  const command = line ? line[0] : raw.command;
  if (typeof command !== 'string' || command === '') return `no command at ${where}`;
  return {
    command,
    args: line ? line.slice(1) : strings(raw.args),
    env: { ...stringRecord(raw.env), ...stringRecord(raw.environment) },
    ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
  };
}

function readConfigFile(path: string, format: 'json' | 'toml'): unknown {
  const text = readFileSync(path, 'utf8');
  return format === 'toml' ? parseToml(text) : parseJsonc(text);
}

/** What a failed server said on stderr: its error lines, else its last few lines (stack frames left out). */
function stderrGist(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !/^\s+at\s/.test(line));
  const errors = lines.filter((line) => /^\s*\w*(Error|Exception)\b:?/.test(line));
  return (errors.length > 0 ? errors : lines.slice(-3)).map((line) => line.trim()).join('\n');
}

/** Starts one configured server, completes the MCP handshake and lists its tools. */
async function check(root: string, server: ConfiguredServer): Promise<Omit<DoctorCheck, 'usedBy'>> {
  const base = { command: server.command, args: server.args };
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: server.cwd === undefined ? root : isAbsolute(server.cwd) ? server.cwd : join(root, server.cwd),
    env: { ...getDefaultEnvironment(), ...server.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const client = new Client({ name: 'assist-doctor', version: '1.0.0' });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no MCP handshake within ${HANDSHAKE_TIMEOUT_MS / 1000} s`)),
        HANDSHAKE_TIMEOUT_MS,
      );
    });
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await Promise.race([client.listTools(), timeout]);
    const info = client.getServerVersion();
    return {
      ...base,
      ok: true,
      server: {
        name: info?.name ?? '?',
        version: info?.version ?? '?',
        tools: tools.map((tool) => tool.name),
      },
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const plain = /ENOENT/.test(reason)
      ? `command not found: ${server.command}`
      : /Connection closed/i.test(reason)
        ? 'the server exited before completing the MCP handshake'
        : reason;
    const said = stderrGist(stderr);
    return { ...base, ok: false, error: said === '' ? plain : `${plain}\n${said}` };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {
      // Closing a transport whose process already died may fail; there is nothing left to release.
    });
  }
}

/**
 * Checks every MCP command that `assist install` wrote for the project's agents: starts it, completes the
 * handshake with the MCP SDK's client and lists its tools. Identical commands are started once.
 * @example
 * const result = await runDoctor(process.cwd());
 * if (result.ok && result.value.some((check) => !check.ok)) process.exitCode = 1;
 */
export async function runDoctor(root: string): Promise<Result<DoctorCheck[]>> {
  const project = readProject(root);
  if (!project.ok) return project;
  const config = await loadConfig(root);
  if (!config.ok) return config;
  const statePath = join(root, STATE_FILE);
  if (!existsSync(statePath))
    return fail(
      new AssistError('not_installed', 'assist is not installed here yet; run `assist install` first.'),
    );
  const state = parseState(readFileSync(statePath, 'utf8'));
  if (!state.ok) return state;
  const registry = createAgentRegistry();
  const accepted = new Set(state.value.packages);
  const plugins = await loadPlugins(
    findPackageResources(project.value, config.value.guidelines.dependencies).filter((pkg) =>
      accepted.has(pkg.name),
    ),
    registry,
  );
  if (!plugins.ok) return plugins;

  const servers = new Map<string, { server: ConfiguredServer; usedBy: string[] }>();
  const broken: DoctorCheck[] = [];
  for (const name of state.value.agents) {
    const agent = registry.get(name);
    if (agent === undefined || !supportsMcp(agent)) continue;
    const file = config.value.agents[name]?.mcp_config_path ?? agent.mcpConfigPath(root);
    const keyPath = agent.mcpServerPath(config.value.mcp.server_name);
    const where = `${agent.displayName} (${file})`;
    let server: ConfiguredServer | string;
    try {
      server = existsSync(join(root, file))
        ? serverFrom(at(readConfigFile(join(root, file), agent.mcpFormat()), keyPath), keyPath.join('.'))
        : `${file} is missing; run \`assist install\``;
    } catch (error) {
      server = `${file} does not parse: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (typeof server === 'string') {
      broken.push({
        command: '',
        args: [],
        usedBy: [where],
        ok: false,
        error: server,
      });
      continue;
    }
    const id = JSON.stringify(server);
    const known = servers.get(id);
    if (known) known.usedBy.push(where);
    else servers.set(id, { server, usedBy: [where] });
  }
  const checks = await Promise.all(
    [...servers.values()].map(async ({ server, usedBy }) => ({ ...(await check(root, server)), usedBy })),
  );
  return ok([...checks, ...broken]);
}

/** The doctor's report as the CLI prints it. */
export function formatDoctorReport(checks: readonly DoctorCheck[]): string {
  if (checks.length === 0) return 'No agent with an MCP config is set up; nothing to check.\n';
  const lines: string[] = [];
  for (const check of checks) {
    const command = [check.command, ...check.args].join(' ');
    lines.push(`${check.ok ? 'ok  ' : 'FAIL'}  ${command === '' ? '(no command)' : command}`);
    lines.push(`      configured for ${check.usedBy.join(', ')}`);
    if (check.server) {
      const { name, version, tools } = check.server;
      lines.push(`      ${name} ${version}, ${tools.length} tools: ${tools.join(', ')}`);
    }
    if (check.error) for (const line of check.error.split('\n')) lines.push(`      ${line}`);
  }
  const failed = checks.filter((check) => !check.ok).length;
  lines.push(
    failed === 0
      ? `All ${checks.length} MCP command(s) started and answered.`
      : `${failed} of ${checks.length} MCP command(s) failed.`,
  );
  return `${lines.join('\n')}\n`;
}
