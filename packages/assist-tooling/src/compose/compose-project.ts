import { fileURLToPath } from 'node:url';
import type { AssistConfig } from '../config.js';
import { ok, type Result } from '../errors.js';
import { readState } from '../install/state.js';
import { enabledTools } from '../mcp/enabled-tools.js';
import type { Project } from '../project.js';
import { composeGuidelines, loadSkills, renderGuidelines, type Skill } from './compose.js';
import { discoverSources, findPackageResources, type PackageResources } from './sources.js';
import { createTemplateHelper } from './template.js';

/** The bundled resources folder of this package (next to `src/` and `dist/`). */
export const BUNDLED_RESOURCES = fileURLToPath(new URL('../../resources/', import.meta.url));

/** What install composes for a project: the guideline file's body, the scoped rules and the skills. */
export interface Composition {
  guidelines: ReturnType<typeof composeGuidelines>;
  skills: Skill[];
  promote: boolean;
}

/** Composes a project's guidelines and skills from the given packages' resources and the bundled ones. */
export function composeProject(
  project: Project,
  config: AssistConfig,
  packages: PackageResources[],
  resourcesDir: string,
): Result<Composition> {
  const promote = config.rules.enabled && config.rules.scoped_guidelines;
  const helper = createTemplateHelper(project, {
    mcp: config.mcp.enabled,
    tools: enabledTools(config).map((tool) => tool.name),
    skills: config.skills.enabled,
    scopedRules: promote,
    enforceTests: config.test.enforce,
    dependencies: config.guidelines.dependencies,
  });
  const sources = discoverSources(project, {
    resourcesDir,
    dependencies: config.guidelines.dependencies,
    packages,
  });
  const skills = config.skills.enabled ? loadSkills(sources.skills, helper, config.skills.exclude) : ok([]);
  if (!skills.ok) return skills;
  // Guidelines mention skills only when some are actually installed.
  helper.skills = skills.value.length > 0;
  helper.skillNames = skills.value.map((skill) => skill.name);
  const sections = renderGuidelines(sources.guidelines, helper, config.guidelines.exclude);
  if (!sections.ok) return sections;
  return ok<Composition>({
    guidelines: composeGuidelines(sections.value, promote),
    skills: skills.value,
    promote,
  });
}

/**
 * Composes the guidelines and skills `install` writes for a project, with the packages `assist.json` records
 * (first-party ones always): what the MCP server serves as resources.
 */
export function composeForProject(
  project: Project,
  config: AssistConfig,
  resourcesDir: string = BUNDLED_RESOURCES,
): Result<Composition> {
  const state = readState(project.root);
  const accepted = new Set(state.ok ? (state.value?.packages ?? []) : []);
  const packages = findPackageResources(project, config.guidelines.dependencies).filter(
    (pkg) => pkg.firstParty || accepted.has(pkg.name),
  );
  return composeProject(project, config, packages, resourcesDir);
}
