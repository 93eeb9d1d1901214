import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { AssistError, fail, ok, type Result } from './errors.js';

const agentPaths = z
  .object({
    guidelines_path: z.string().min(1).optional(),
    mcp_config_path: z.string().min(1).optional(),
    skills_path: z.string().min(1).optional(),
  })
  .strict();

const nameList = z.array(z.string().min(1)).default([]);

/** The zod schema of the `Assist` key of `assist.config.{json,js,ts}`. */
export const assistConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    force_enable: z.boolean().default(false),
    browser_logs_watcher: z.boolean().default(true),
    rules: z
      .object({ enabled: z.boolean().default(true), scoped_guidelines: z.boolean().default(false) })
      .strict()
      .prefault({}),
    guidelines: z
      .object({ dependencies: z.enum(['direct', 'all']).default('direct'), exclude: nameList })
      .strict()
      .prefault({}),
    skills: z
      .object({ enabled: z.boolean().default(true), exclude: nameList })
      .strict()
      .prefault({}),
    mcp: z
      .object({
        enabled: z.boolean().default(true),
        server_name: z
          .string()
          .regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, "-" and "_"')
          .default('assist'),
        command: z.string().min(1).optional(),
        args: z.array(z.string()).optional(),
        tools: z.object({ include: nameList, exclude: nameList }).strict().prefault({}),
      })
      .strict()
      .prefault({}),
    execute: z
      .object({
        enabled: z.boolean().default(false),
        timeout: z.number().int().positive().max(180).default(30),
      })
      .strict()
      .prefault({}),
    test: z
      .object({ enforce: z.boolean().default(true) })
      .strict()
      .prefault({}),
    agents: z.record(z.string(), agentPaths).default({}),
    /** The module that exports the app (`src/app.ts` or `src/app.ts#app`), for the routes and execute tools. */
    app: z.string().min(1).optional(),
    /** The app's public URL; otherwise `APP_URL` and friends, then `PORT`. */
    url: z.url().optional(),
    timezone: z.string().min(1).optional(),
    /** Log files the log tools read, besides `logs/*.log`, `storage/logs/*.log` and `*.log`. */
    logs: z.array(z.string().min(1)).default([]),
    database: z
      .object({
        /** Extra connections by name: a URL (`postgres:`, `mysql:`, `sqlite:`/`file:`, `pglite:`). */
        connections: z.record(z.string(), z.string().min(1)).default({}),
        default: z.string().min(1).optional(),
        max_rows: z.number().int().positive().max(10_000).default(100),
        timeout: z.number().positive().max(60).default(5),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** The validated `assist` configuration with every default filled in. */
export type AssistConfig = z.infer<typeof assistConfigSchema>;

/** The configuration used when a project has no `assist.config` file. */
export function defaultConfig(): AssistConfig {
  return assistConfigSchema.parse({});
}

const CONFIG_FILES = ['assist.config.json', 'assist.config.js', 'assist.config.mjs', 'assist.config.ts'];

/** Validates a parsed config file (its root object holding the `Assist` key). */
export function parseConfig(raw: unknown, file = 'assist.config'): Result<AssistConfig> {
  const root = z.object({ Assist: z.unknown().default({}) }).safeParse(raw ?? {});
  if (!root.success) return fail(invalid(file, root.error));
  const parsed = assistConfigSchema.safeParse(root.data.Assist ?? {});
  if (!parsed.success) return fail(invalid(file, parsed.error, ['Assist']));
  return ok(parsed.data);
}

function invalid(file: string, error: z.ZodError, prefix: PropertyKey[] = []): AssistError {
  const lines = error.issues.map((issue) => {
    const path = [...prefix, ...issue.path].map(String).join('.');
    return `  ${path || '(root)'}: ${issue.message}`;
  });
  return new AssistError('config_invalid', `${file} is invalid:\n${lines.join('\n')}`, { cause: error });
}

/** Finds and loads the project's `assist.config.{json,js,mjs,ts}`; no file gives the defaults. */
export async function loadConfig(root: string): Promise<Result<AssistConfig>> {
  const file = CONFIG_FILES.find((name) => existsSync(join(root, name)));
  if (file === undefined) return ok(defaultConfig());
  const path = join(root, file);
  try {
    if (file.endsWith('.json')) return parseConfig(JSON.parse(readFileSync(path, 'utf8')), file);
    if (file.endsWith('.ts')) {
      const { createJiti } = await import('jiti');
      const jiti = createJiti(import.meta.url, { moduleCache: false });
      return parseConfig(await jiti.import(path, { default: true }), file);
    }
    const mod = (await import(`${pathToFileURL(path).href}?t=${Date.now()}`)) as { default?: unknown };
    return parseConfig(mod.default, file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail(new AssistError('config_invalid', `${file} could not be read: ${reason}`, { cause: error }));
  }
}
