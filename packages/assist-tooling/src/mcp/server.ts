import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type AssistConfig, defaultConfig } from '../config.js';
import { DocsSearch } from './docs/docs-index.js';
import { enabledTools } from './enabled-tools.js';
import { readAppEnv } from './env-file.js';
import { registerAssistResources } from './resources.js';
import { errorResult } from './tool-result.js';
import { searchDocs } from './tools/search-docs.js';
import type { ToolContext } from './tools/tool.js';

/** The name the `assist` MCP server announces to clients. */
export const MCP_SERVER_NAME = 'assist-server';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Creates the `assist` MCP server for a project; connect it to a transport (stdio for agents).
 * @example
 * await createAssistServer(process.cwd(), config).connect(new StdioServerTransport());
 */
export function createAssistServer(root: string, config: AssistConfig = defaultConfig()): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: VERSION });
  const docs = new DocsSearch(root);
  const context: ToolContext = { root, config, env: () => readAppEnv(root), docs };
  const tools = enabledTools(config);
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly,
          ...(tool.readOnly ? {} : { destructiveHint: true }),
          openWorldHint: false,
        },
      },
      async (args: Record<string, unknown>) => {
        try {
          return await tool.run(args as never, context);
        } catch (error) {
          // A tool bug must answer the agent, not end the server.
          return errorResult(
            `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      },
    );
  }
  registerAssistResources(server, root, config);
  if (tools.some((tool) => tool.name === searchDocs.name)) {
    // Build the documentation index once the client is connected, so the handshake never waits for it; a
    // search that comes before it is done waits for the same build.
    server.server.oninitialized = () => {
      docs.warm().catch(() => {
        // The search call reports the failure when it builds again.
      });
    };
  }
  return server;
}
