import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type Composition, composeForProject } from '../compose/compose-project.js';
import type { AssistConfig } from '../config.js';
import { readProject } from '../project.js';
import { readDocsFile } from './docs/docs-index.js';

/** The URI of the composed guidelines resource. */
export const GUIDELINES_URI = 'assist://guidelines';

function composition(root: string, config: AssistConfig): Composition {
  const project = readProject(root);
  if (!project.ok) throw project.error;
  const composed = composeForProject(project.value, config);
  if (!composed.ok) throw composed.error;
  return composed.value;
}

const mimeOf = (file: string): string =>
  /\.(md|mdx|markdown)$/i.test(file)
    ? 'text/markdown'
    : /\.d\.[cm]?ts$/.test(file)
      ? 'text/x-typescript'
      : 'text/plain';

const variable = (value: string | string[] | undefined): string =>
  decodeURIComponent(Array.isArray(value) ? value.join('/') : (value ?? ''));

/**
 * Registers the server's resources: the composed guidelines (`assist://guidelines`), every file of each
 * installed skill (`assist://skills/{name}/{file}`), and any documentation file of an installed package
 * (`assist://docs/{package}/{file}`, the URIs `search-docs` hits carry). Each is composed or read when asked.
 */
export function registerAssistResources(server: McpServer, root: string, config: AssistConfig): void {
  server.registerResource(
    'guidelines',
    GUIDELINES_URI,
    {
      title: 'Project guidelines',
      description: 'The guidelines assist composed for this project, as written to the agent files.',
      mimeType: 'text/markdown',
    },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: 'text/markdown', text: composition(root, config).guidelines.content },
      ],
    }),
  );
  if (config.skills.enabled) {
    server.registerResource(
      'skills',
      new ResourceTemplate('assist://skills/{name}/{+file}', {
        list: () => ({
          resources: composition(root, config).skills.flatMap((skill) =>
            [...skill.files.keys()].map((file) => ({
              uri: `assist://skills/${skill.name}/${file}`,
              name: file === 'SKILL.md' ? skill.name : `${skill.name}/${file}`,
              ...(file === 'SKILL.md' ? { description: skill.description } : {}),
              mimeType: mimeOf(file),
            })),
          ),
        }),
      }),
      { title: 'Skills', description: 'The files of each skill installed for this project.' },
      (uri, variables) => {
        const name = variable(variables.name);
        const file = variable(variables.file);
        const skill = composition(root, config).skills.find((candidate) => candidate.name === name);
        const text = skill?.files.get(file);
        if (text === undefined) throw new Error(`No skill file ${name}/${file}.`);
        return { contents: [{ uri: uri.href, mimeType: mimeOf(file), text }] };
      },
    );
  }
  server.registerResource(
    'package-docs',
    new ResourceTemplate('assist://docs/{+path}', { list: undefined }),
    {
      title: 'Package documentation',
      description:
        'A README, docs/ page, CHANGELOG or declaration file of an installed package, as search-docs hits link them.',
    },
    async (uri, variables) => {
      const path = variable(variables.path);
      const parts = path.split('/');
      const size = path.startsWith('@') ? 2 : 1;
      const pkg = parts.slice(0, size).join('/');
      const file = parts.slice(size).join('/');
      const text = await readDocsFile(root, pkg, file);
      if (text === undefined)
        throw new Error(`No documentation file ${file} in an installed package ${pkg}.`);
      return { contents: [{ uri: uri.href, mimeType: mimeOf(file), text }] };
    },
  );
}
