import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { AssistConfig } from '../config.js';
import { tailFile } from '../mcp/log-files.js';

/** The route the browser watcher posts console entries to. */
export const BROWSER_LOGS_PATH = '/_assist/browser-logs';

/** Where browser entries are kept, relative to the project root (NDJSON, rotated at 1 MiB). */
export const BROWSER_LOG_FILE = '.assist/logs/browser.log';

const MAX_BODY_BYTES = 64 * 1024;
const MAX_FILE_BYTES = 1024 * 1024;

/** One console entry from the browser as stored and as the browser-logs tool returns it. */
export interface BrowserLogEntry {
  time: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  stack?: string;
  url?: string;
}

const batchSchema = z.object({
  logs: z
    .array(
      z.object({
        level: z.string().max(32),
        time: z.string().max(64).optional(),
        url: z.string().max(2048).optional(),
        args: z.array(z.unknown()).max(50).default([]),
        stack: z.string().max(16_000).optional(),
      }),
    )
    .max(50),
});

/** Whether the browser-log route and script are on: development (or `force_enable`) and `browser_logs_watcher`. */
export function browserLogsEnabled(config: AssistConfig, development: boolean): boolean {
  return config.enabled && config.browser_logs_watcher && (development || config.force_enable);
}

function requestPath(request: { url: string }): string {
  return request.url.startsWith('/') ? request.url.replace(/\?.*$/, '') : new URL(request.url).pathname;
}

/**
 * Tells CSRF middleware to let the browser watcher's posts through: they carry no token (sendBeacon cannot
 * set headers) and only append to a development log.
 * @example
 * app.use(csrf({ skip: (request) => shouldSkipCsrf(request) }));
 */
export function shouldSkipCsrf(request: { method: string; url: string }): boolean {
  return request.method.toUpperCase() === 'POST' && requestPath(request) === BROWSER_LOGS_PATH;
}

/** Tells auth middleware that a request is for the browser watcher's route, which is public by design. */
export function isPublicAssistRoute(request: { url: string }): boolean {
  return requestPath(request) === BROWSER_LOGS_PATH;
}

const LEVELS: Record<string, BrowserLogEntry['level']> = {
  log: 'debug',
  debug: 'debug',
  trace: 'debug',
  table: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  window_error: 'error',
  uncaught_error: 'error',
  unhandled_rejection: 'error',
};

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && 'message' in value && 'stack' in value) {
    const error = value as { name?: unknown; message?: unknown };
    return `${String(error.name ?? 'Error')}: ${String(error.message)}`;
  }
  return JSON.stringify(value) ?? String(value);
}

function stackOf(args: unknown[]): string | undefined {
  const error = args.find((value) => value !== null && typeof value === 'object' && 'stack' in value) as
    | { stack?: unknown }
    | undefined;
  return typeof error?.stack === 'string' ? error.stack : undefined;
}

/** Turns a watcher batch into stored entries: levels mapped, arguments joined, text capped. */
export function normalizeBrowserBatch(body: unknown): BrowserLogEntry[] | undefined {
  const parsed = batchSchema.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.logs.map((log) => {
    const stack = log.stack ?? stackOf(log.args);
    const time =
      log.time !== undefined && !Number.isNaN(Date.parse(log.time))
        ? new Date(log.time).toISOString()
        : new Date().toISOString();
    return {
      time,
      level: LEVELS[log.level] ?? 'info',
      message: log.args.map(describe).join(' ').slice(0, 4000),
      ...(stack ? { stack: stack.slice(0, 8000) } : {}),
      ...(log.url ? { url: log.url } : {}),
    };
  });
}

/** Appends entries to the project's browser log, rotating it to `browser.log.1` past 1 MiB. */
export function storeBrowserEntries(root: string, entries: readonly BrowserLogEntry[]): void {
  if (entries.length === 0) return;
  const file = join(root, BROWSER_LOG_FILE);
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file) && statSync(file).size > MAX_FILE_BYTES) renameSync(file, `${file}.1`);
  appendFileSync(file, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
}

/** The latest stored browser entries, oldest first. */
export function readBrowserEntries(root: string): BrowserLogEntry[] {
  const file = join(root, BROWSER_LOG_FILE);
  if (!existsSync(file)) return [];
  return tailFile(file)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as BrowserLogEntry];
      } catch {
        // A line cut by a crash mid-write: skip it, the others are whole.
        return [];
      }
    });
}

/**
 * Answers a watcher post (`POST /_assist/browser-logs`, JSON or `text/plain` from sendBeacon): 204 when
 * stored, 413 past 64 KiB, 400 for a body that is not a batch.
 */
export async function handleBrowserLogs(request: Request, root: string): Promise<Response> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) return new Response('Payload too large', { status: 413 });
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return new Response('Payload too large', { status: 413 });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response('Expected a JSON batch of logs', { status: 400 });
  }
  const entries = normalizeBrowserBatch(body);
  if (entries === undefined)
    return new Response('Expected { logs: [...] } with at most 50 entries', { status: 400 });
  storeBrowserEntries(root, entries);
  return new Response(null, { status: 204 });
}
