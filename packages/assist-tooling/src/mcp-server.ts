import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readProject } from './project.js';

/** The name the `assist` MCP server announces to clients. */
export const MCP_SERVER_NAME = 'assist-server';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Facts about the project that the `application-info` tool returns. */
export interface ApplicationInfo {
  name: string | null;
  node: { target: string; running: string };
  packageManager: string;
  packages: { name: string; version: string; direct: boolean }[];
}

/** Reads the facts the `application-info` tool reports, or an error message when the project is unreadable. */
export function readApplicationInfo(root: string): ApplicationInfo | { error: string } {
  const project = readProject(root);
  if (!project.ok) return { error: project.error.message };
  const { name, nodeVersion, packageManager, packages } = project.value;
  return {
    name: name ?? null,
    node: { target: nodeVersion, running: process.versions.node },
    packageManager,
    packages: [...packages.values()].map((pkg) => ({
      name: pkg.name,
      version: pkg.version,
      direct: pkg.direct,
    })),
  };
}

/**
 * Creates the `assist` MCP server for a project; connect it to a transport (stdio for agents).
 * @example
 * await createAssistServer(process.cwd()).connect(new StdioServerTransport());
 */
export function createAssistServer(root: string): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: VERSION });
  server.registerTool(
    'application-info',
    {
      title: 'Application info',
      description:
        'Node version, package manager and installed packages with their exact versions. ' +
        'Call it at the start of a task so your code matches the versions in use.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => {
      const info = readApplicationInfo(root);
      return { content: [{ type: 'text', text: JSON.stringify(info, null, 2) }], isError: 'error' in info };
    },
  );
  return server;
}
