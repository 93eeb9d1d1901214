import { createSynchronousArrayLoader, createSynchronousEnvironment } from 'twing';
import { AssistError, fail, ok, type Result } from '../errors.js';
import {
  execCommand,
  installedVersion,
  type PackageManager,
  type Project,
  runScriptCommand,
  usesPackage,
} from '../project.js';
import { SELF } from './bundled.js';
import { type ProjectFacts, readProjectFacts } from './project-facts.js';

/** What a `.twig` guideline or skill sees as `assist`: installed versions and project facts. */
export interface TemplateHelper {
  /** Installed versions by package name, plus `node` for the target Node version. */
  versions: Record<string, string>;
  packageManager: PackageManager;
  nodeMajor: number;
  /** Whether MCP configuration is being written. */
  mcp: boolean;
  /** Names of the MCP tools the configured server offers (none when MCP is off). */
  tools: string[];
  /** Whether skills are being installed. */
  skills: boolean;
  /** Whether `@scoped` blocks become rule files. */
  scopedRules: boolean;
  /** Whether guidelines should insist on tests for every change. */
  enforceTests: boolean;
  /**
   * The packages to list as the project's stack: direct dependencies (or all with `dependencies: all`),
   * without `@types/*` and without assist itself.
   */
  packages: { name: string; version: string }[];
  /** What the project's files say: declared Node, module kind, tsconfig, commands, env loading. */
  facts: ProjectFacts;
  /** Names of the skills being installed; set once skills are loaded. */
  skillNames: string[];
  has(name: string): boolean;
  /** Whether a skill of that name is being installed, so a guideline may point to it. */
  skill(name: string): boolean;
  /** Whether the MCP server offers that tool, so a guideline may tell agents to call it. */
  tool(name: string): boolean;
  uses(name: string, range?: string): boolean;
  major(name: string): number | undefined;
  run(script: string): string;
  exec(command: string): string;
}

/** Switches that shape the wording of rendered guidelines. */
export interface TemplateFlags {
  mcp: boolean;
  /** The MCP tools the configured server offers. */
  tools?: readonly string[];
  skills: boolean;
  scopedRules: boolean;
  enforceTests: boolean;
  dependencies: 'direct' | 'all';
}

/** Builds the `assist` helper that templates use for version conditions and commands. */
export function createTemplateHelper(project: Project, flags: TemplateFlags): TemplateHelper {
  const versions: Record<string, string> = { node: project.nodeVersion };
  for (const [name, pkg] of project.packages) versions[name] = pkg.version;
  const { dependencies, tools = [], ...switches } = flags;
  const packages = [...project.packages.values()]
    .filter((pkg) => pkg.direct || dependencies === 'all')
    .filter((pkg) => !pkg.name.startsWith('@types/') && pkg.name !== SELF)
    .map((pkg) => ({ name: pkg.name, version: pkg.version }));
  const helper: TemplateHelper = {
    versions,
    packageManager: project.packageManager,
    nodeMajor: Number.parseInt(project.nodeVersion, 10),
    packages,
    facts: readProjectFacts(project),
    skillNames: [],
    ...switches,
    tools: switches.mcp ? [...tools] : [],
    has: (name) => project.packages.has(name),
    skill: (name) => helper.skills && helper.skillNames.includes(name),
    tool: (name) => helper.tools.includes(name),
    uses: (name, range) => usesPackage(project, name, range ?? undefined),
    major: (name) => {
      const version = installedVersion(project, name);
      return version === undefined ? undefined : Number.parseInt(version, 10);
    },
    run: (script) => runScriptCommand(project.packageManager, script),
    exec: (command) => execCommand(project.packageManager, command),
  };
  return helper;
}

const SNIPPET =
  /^[ \t]*@assistsnippet\(\s*(['"])(.*?)\1\s*(?:,\s*(['"])(.*?)\3\s*)?\)[ \t]*\n([\s\S]*?)^[ \t]*@endassistsnippet[ \t]*$/gm;

function dedent(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const cut = Math.min(...indents, Number.POSITIVE_INFINITY);
  return lines.map((line) => line.slice(Number.isFinite(cut) ? cut : 0)).join('\n');
}

/**
 * Renders guideline or skill source text: `@assistsnippet` blocks become fenced code (kept verbatim), and
 * `.twig` sources go through Twig with `assist` in scope; `.md` sources are otherwise left as written.
 */
export function renderTemplate(source: string, file: string, helper: TemplateHelper): Result<string> {
  const snippets: string[] = [];
  const protectedText = source.replace(
    SNIPPET,
    (_match, _q, name: string, _q2, lang: string | undefined, body: string) => {
      const info = `${lang ?? ''}${name ? ` title="${name}"` : ''}`.trim();
      snippets.push(`\`\`\`${info}\n${dedent(body)}\n\`\`\``);
      return `@@assist-snippet-${snippets.length - 1}@@`;
    },
  );
  let rendered = protectedText;
  if (file.endsWith('.twig')) {
    try {
      const environment = createSynchronousEnvironment(
        createSynchronousArrayLoader({ [file]: protectedText }),
      );
      rendered = environment.render(file, { assist: helper }, { strict: true });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return fail(
        new AssistError('template_failed', `${file} could not be rendered: ${reason}`, { cause: error }),
      );
    }
  }
  return ok(
    rendered.replace(/@@assist-snippet-(\d+)@@/g, (_match, index: string) => snippets[Number(index)] ?? ''),
  );
}

/** Tidies rendered Markdown: trims trailing spaces and collapses runs of blank lines left by conditions. */
export function tidyMarkdown(text: string): string {
  const out: string[] = [];
  let fence = false;
  for (const raw of text.split('\n')) {
    const line = fence ? raw : raw.replace(/[ \t]+$/, '');
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (!fence && line === '' && out.at(-1) === '') continue;
    out.push(line);
  }
  return out.join('\n').trim();
}
