import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PackageResources } from '../compose/sources.js';
import { AssistError, fail, ok, type Result } from '../errors.js';
import { Agent, type AgentClass, type AgentRegistry } from './registry.js';

/** What a package's setup hook receives: the agent base class and a way to register agents. */
export interface PluginApi {
  Agent: typeof Agent;
  registerAgent(name: string, agentClass: AgentClass): void;
}

/** The shape of a module named by a package's `"assist": { "setup": "./file.js" }`. */
export interface PluginModule {
  setup?: (api: PluginApi) => void | Promise<void>;
  default?: (api: PluginApi) => void | Promise<void>;
}

/** Runs the setup hook of each package that declares one; returns the names of the agents they added. */
export async function loadPlugins(
  packages: readonly PackageResources[],
  registry: AgentRegistry,
): Promise<Result<string[]>> {
  const added: string[] = [];
  const api: PluginApi = {
    Agent,
    registerAgent: (name, agentClass) => {
      registry.register(name, agentClass);
      added.push(name);
    },
  };
  for (const pkg of packages) {
    if (pkg.setup === undefined) continue;
    try {
      const mod = (await import(pathToFileURL(join(pkg.packageDir, pkg.setup)).href)) as PluginModule;
      const setup = mod.setup ?? mod.default;
      if (typeof setup !== 'function') {
        return fail(new AssistError('plugin_failed', `${pkg.name}: ${pkg.setup} exports no setup function.`));
      }
      await setup(api);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return fail(
        new AssistError('plugin_failed', `${pkg.name}: setup hook failed: ${reason}`, { cause: error }),
      );
    }
  }
  return ok(added);
}
