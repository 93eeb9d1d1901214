import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HttpApiError } from '../errors.js';
import type { ValidationIssue } from '../validation.js';
import { createTextResponse } from './light-response.js';

/** Answers JSON with the headers the middleware gathered on the context (CORS, rate limits) plus `extra`. */
export function sendJson(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode = 200,
  extra: Readonly<Record<string, string>> = {},
): Response {
  const text = JSON.stringify(body);
  const headers = new Headers({
    ...(c.get('responseHeaders') as Record<string, string> | undefined),
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  // A light response: the REST path is hot, and undici's Response would stream this short string.
  return createTextResponse(text, status, headers);
}

/** The API error that answers a failed validation: 413 for a too-large payload, 400 otherwise. */
export function refuse(issue: ValidationIssue): HttpApiError {
  return new HttpApiError(
    issue.kind === 'payload_too_large' ? 'payload_too_large' : 'invalid_body',
    issue.message,
    {
      field: issue.field,
    },
  );
}
