import type { Context } from 'hono';
import type { z } from 'zod';

/** One problem with a request, at a dotted path such as `data.title` or `recipients.3`. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** The problems zod found, each with the dotted path of the field at fault (`(body)` for the whole body). */
export function fieldIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(body)',
    message: issue.message,
  }));
}

/** The problems as one line: `data.title: Too small; channels.0: …`. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/** A request body read and checked: the value, or why not (not JSON, or fields at fault). */
export type BodyResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'not_json' }
  | { readonly ok: false; readonly reason: 'invalid'; readonly issues: FieldIssue[] };

/** Reads a JSON body (an empty body counts as `{}`) and checks it against a schema. */
export async function readJsonBody<T extends z.ZodType>(
  c: Context,
  schema: T,
): Promise<BodyResult<z.output<T>>> {
  const text = await c.req.text();
  let raw: unknown = {};
  if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'not_json' };
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'invalid', issues: fieldIssues(parsed.error) };
  return { ok: true, value: parsed.data as z.output<T> };
}

/** The value as JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(
      Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });
}

/** The bearer token of an `Authorization` header, if it carries one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
