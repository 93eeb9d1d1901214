import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isAssistError } from '../errors.js';
import { type Prompter, type RunReport, runAssist } from '../install/run-assist.js';
import { formatTokenReport } from '../install/token-report.js';

/** Where the CLI reads and writes; tests pass their own to capture output and stay non-interactive. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether a person can answer prompts (stdin is a terminal). */
  interactive: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const HELP = `Usage: assist <command> [options]

Commands:
  install   Choose agents and write their guidelines, skills and MCP configuration
  update    Refresh what install wrote (safe in a postinstall script)
  mcp       Start the assist MCP server on stdio
  doctor    Start each MCP command written for the agents, complete the handshake and list its tools

Options:
  --agents a,b       Agents to set up (claude_code, codex, cursor, copilot, gemini, opencode, junie, zed)
  --packages a,b     Third-party packages whose guidelines and skills to include
  --dry-run          Print the diff that would be written, write nothing
  --no-discover      update: refresh only what is already published, look for no new packages
  --no-interaction   Never prompt (implied without a terminal, under CI, in install scripts)
  --cwd <dir>        The project folder (default: the current folder)
  -h, --help         Show this help
  -v, --version      Show the version
`;

function defaultIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: Boolean(process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

async function clackPrompter(): Promise<Prompter> {
  const { isCancel, multiselect } = await import('@clack/prompts');
  const ask = async (
    message: string,
    options: { value: string; label: string }[],
    initial: readonly string[],
  ) => {
    const answer = await multiselect({ message, options, initialValues: [...initial], required: false });
    return isCancel(answer) ? [] : answer;
  };
  return {
    chooseAgents: (choices, preselected) =>
      ask(
        'Which agents should assist set up?',
        choices.map((choice) => ({ value: choice.name, label: choice.label })),
        preselected,
      ),
    choosePackages: (choices, preselected) =>
      ask(
        'These packages ship guidelines or skills for agents. Include which?',
        choices.map((name) => ({ value: name, label: name })),
        preselected,
      ),
  };
}

function printReport(io: CliIo, command: string, report: RunReport, dryRun: boolean): void {
  if (report.skipped === 'disabled') {
    io.stdout('assist is disabled by assist.config (Assist.enabled is false); nothing written.\n');
    return;
  }
  if (report.skipped === 'not_installed') {
    io.stdout('assist is not installed in this project yet; run `assist install` first. Nothing written.\n');
    return;
  }
  io.stdout(`assist ${command}: ${report.agents.map((agent) => agent.label).join(', ')}\n`);
  if (dryRun) {
    io.stdout(report.diff);
    io.stdout(
      report.changes.length === 0
        ? 'Dry run: nothing would change.\n'
        : `Dry run: ${report.changes.length} file(s) would change; nothing was written.\n`,
    );
  } else if (report.changes.length === 0) {
    io.stdout('Everything is up to date; nothing changed.\n');
  } else {
    for (const change of report.changes) {
      const verb = change.before === null ? 'created' : change.after === null ? 'deleted' : 'updated';
      io.stdout(`  ${verb.padEnd(8)}${change.path}\n`);
    }
  }
  for (const note of report.notes) io.stdout(`Note: ${note}\n`);
  const tokens = formatTokenReport(report.tokens);
  if (tokens !== '' && command === 'install') io.stdout(`\n${tokens}\n`);
}

// Scripts a package manager runs while installing: nobody may be there to answer, even with a terminal.
const INSTALL_SCRIPTS = new Set([
  'preinstall',
  'install',
  'postinstall',
  'prepare',
  'preprepare',
  'postprepare',
]);

/**
 * Whether the CLI may ask questions: whenever stdin is a terminal, unless `--no-interaction`, CI, or an
 * install script (`postinstall`, `prepare`…) runs it. `npx assist` and `npm run` set `npm_lifecycle_event`
 * too (to `npx` or the script's name), and a person is there to answer those.
 */
export function shouldPrompt(options: {
  terminal: boolean;
  noInteraction: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): boolean {
  const { CI: ci, npm_lifecycle_event: lifecycle } = options.env;
  const inCi = ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
  return options.terminal && !options.noInteraction && !inCi && !INSTALL_SCRIPTS.has(lifecycle ?? '');
}

/**
 * Runs the `assist` command line and resolves to its exit code (0 success, 1 failure, 2 bad usage).
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.version) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.stdout(`${pkg.version}\n`);
    return 0;
  }
  if (values.help || command === undefined || command === 'help') {
    io.stdout(HELP);
    return 0;
  }
  const root = resolve(io.cwd, values.cwd ?? '.');
  if (command === 'mcp') {
    const [{ createAssistServer }, { StdioServerTransport }, { loadConfig }] = await Promise.all([
      import('../mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../config.js'),
    ]);
    const config = await loadConfig(root);
    if (!config.ok) {
      io.stderr(`assist mcp: ${config.error.message}\n`);
      return 1;
    }
    await createAssistServer(root, config.value).connect(new StdioServerTransport());
    return 0;
  }
  if (command === 'doctor') {
    const { formatDoctorReport, runDoctor } = await import('./doctor.js');
    const result = await runDoctor(root);
    if (!result.ok) {
      io.stderr(`assist doctor: ${result.error.message}\n`);
      return 1;
    }
    io.stdout(formatDoctorReport(result.value));
    return result.value.every((check) => check.ok) ? 0 : 1;
  }
  if (command !== 'install' && command !== 'update') {
    io.stderr(`Unknown command "${command}".\n\n${HELP}`);
    return 2;
  }
  const canPrompt = shouldPrompt({
    terminal: io.interactive,
    noInteraction: values['no-interaction'] ?? false,
    env: io.env,
  });
  const agents = list(values.agents);
  const packages = list(values.packages);
  const result = await runAssist({
    root,
    mode: command,
    dryRun: values['dry-run'] ?? false,
    discover: !values['no-discover'],
    ...(agents ? { agents } : {}),
    ...(packages ? { packages } : {}),
    ...(canPrompt ? { prompter: await clackPrompter() } : {}),
  });
  if (!result.ok) {
    const error = result.error;
    io.stderr(
      `assist ${command} failed${isAssistError(error) ? ` (${error.code})` : ''}: ${error.message}\n`,
    );
    return 1;
  }
  printReport(io, command, result.value, values['dry-run'] ?? false);
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      agents: { type: 'string' },
      packages: { type: 'string' },
      'dry-run': { type: 'boolean' },
      discover: { type: 'boolean' },
      'no-discover': { type: 'boolean' },
      'no-interaction': { type: 'boolean', short: 'n' },
      cwd: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
