import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { AssistConfig } from '../../config.js';
import type { DocsSearch } from '../docs/docs-index.js';

/** What every tool call gets: the project root, its assist config, and the app's environment read afresh. */
export interface ToolContext {
  root: string;
  config: AssistConfig;
  /** The app's `.env` files under the server's own environment; read at each call so edits show up. */
  env(): Record<string, string>;
  /** The documentation index of the project's packages, shared by every call of the server. */
  docs: DocsSearch;
}

/** One MCP tool of the assist server: name, zod input shape, whether it only reads, and what it does. */
export interface AssistTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  readOnly: boolean;
  /** Off unless the config turns it on (execute). */
  optIn?: (config: AssistConfig) => boolean;
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult> | CallToolResult;
}

export function defineTool<Shape extends z.ZodRawShape>(tool: AssistTool<Shape>): AssistTool<Shape> {
  return tool;
}
