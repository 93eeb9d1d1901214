import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** One entry of an app log, whatever wrote it (pino, winston, plain text). */
export interface LogEntry {
  time?: string;
  level: LogLevel;
  message: string;
  stack?: string;
  file: string;
  /** Other fields of a JSON line, as logged. */
  fields?: Record<string, unknown>;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const TAIL_BYTES = 512 * 1024;
const PINO_LEVELS: Record<number, LogLevel> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** The app's log files: configured paths (files or folders), then `logs/`, `storage/logs/`, `*.log` at the root. */
export function findLogFiles(root: string, configured: readonly string[]): string[] {
  const found = new Set<string>();
  const addDir = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir))
      if (/\.log$|\.ndjson$|\.jsonl$/.test(name)) found.add(join(dir, name));
  };
  for (const path of configured) {
    const full = isAbsolute(path) ? path : resolve(root, path);
    if (existsSync(full) && statSync(full).isDirectory()) addDir(full);
    else if (existsSync(full)) found.add(full);
  }
  addDir(join(root, 'logs'));
  addDir(join(root, 'storage', 'logs'));
  addDir(root);
  return [...found].filter((file) => statSync(file).isFile());
}

/** The last 512 KiB of a file, starting at a whole line. */
export function tailFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    // A cut in the middle of the file leaves a partial first line: drop it.
    return length < size ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    closeSync(fd);
  }
}

function levelOf(value: unknown): LogLevel {
  if (typeof value === 'number')
    return PINO_LEVELS[Math.round(value / 10) * 10] ?? (value >= 50 ? 'error' : 'info');
  const text = String(value ?? '').toLowerCase();
  if (text.startsWith('warn')) return 'warn';
  if (text === 'err' || text === 'critical' || text === 'alert' || text === 'emerg' || text === 'emergency')
    return 'error';
  return (LOG_LEVELS as readonly string[]).includes(text) ? (text as LogLevel) : 'info';
}

function timeOf(value: unknown): string | undefined {
  if (typeof value === 'number') return new Date(value).toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return undefined;
}

function fromJson(line: Record<string, unknown>, file: string): LogEntry {
  const {
    level,
    time,
    timestamp,
    msg,
    message,
    err,
    error,
    stack,
    pid: _pid,
    hostname: _host,
    v: _v,
    ...rest
  } = line;
  const failure = (err ?? error) as { message?: string; stack?: string } | string | undefined;
  const failureStack = typeof failure === 'object' ? failure?.stack : undefined;
  const text = String(msg ?? message ?? (typeof failure === 'object' ? failure?.message : failure) ?? '');
  const entryStack = typeof stack === 'string' ? stack : failureStack;
  const entryTime = timeOf(time ?? timestamp);
  return {
    ...(entryTime ? { time: entryTime } : {}),
    level: levelOf(level),
    message: text,
    ...(entryStack ? { stack: entryStack } : {}),
    file,
    ...(Object.keys(rest).length > 0 ? { fields: rest } : {}),
  };
}

// A record's first line: a date-time or a time of day (pino-pretty's `[10:00:00.000]`), then a level, then
// an optional `(pid)` or `(pid on host)`, then the message.
const TEXT_LINE =
  /^\[?(\d{4}-\d\d-\d\d[T ][\d:.]+(?:Z|[+-]\d\d:?\d\d)?|\d\d:\d\d:\d\d(?:\.\d+)?)\]?\s*(?:[\w.-]+\.)?\[?(TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|CRITICAL|ALERT|EMERGENCY|FATAL)\]?(?:\s*\([^)]*\))?:?\s*(.*)$/i;
const STACK_LINE = /^\s+at\s|^\s*(?:Caused by|\w*Error|\w*Exception):?\s/;

function jsonRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    // A line that opens a multi-line object is not a record of its own.
    return undefined;
  }
}

/**
 * Parses a log text into one entry per logged record: NDJSON lines (pino, winston) and plain lines that start
 * with a time and a level. In a file that has such records, every other line (a stack, a code frame, the body
 * and closing brace of a pretty-printed object) belongs to the record above it; in a file with none, each
 * line is an entry, stack lines joined to the one above.
 */
export function parseLog(text: string, file: string): LogEntry[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  const records = lines.some((line) => TEXT_LINE.test(line) || jsonRecord(line) !== undefined);
  const entries: LogEntry[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const json = jsonRecord(line);
    if (json) {
      entries.push(fromJson(json, file));
      continue;
    }
    const match = TEXT_LINE.exec(line);
    const previous = entries.at(-1);
    if (!match && previous && (records || STACK_LINE.test(line) || /^\s+/.test(line))) {
      // A stack goes on to its end; other lines extend the message (an object's body, a code frame).
      if (previous.stack !== undefined || STACK_LINE.test(line))
        previous.stack = previous.stack ? `${previous.stack}\n${line}` : line;
      else previous.message = `${previous.message}\n${line}`;
      continue;
    }
    const time = timeOf(match?.[1]);
    entries.push({
      ...(time ? { time } : {}),
      level: levelOf(match?.[2] ?? (/\berror\b/i.test(line) ? 'error' : 'info')),
      message: match?.[3] ?? line,
      file,
    });
  }
  return entries;
}

/** The latest entries of all the app's logs, oldest first, each file's path relative to the root. */
export function readLogEntries(root: string, configured: readonly string[]): LogEntry[] {
  const all = findLogFiles(root, configured).flatMap((file) =>
    parseLog(tailFile(file), relative(root, file)),
  );
  // Entries without a time keep their place in their file; the sort is stable.
  return all.sort((a, b) => (a.time && b.time ? a.time.localeCompare(b.time) : 0));
}
