import type { z } from 'zod';

/** Why a request's body or query was refused, naming the field at fault. */
export interface ValidationIssue {
  /** The field at fault, as a path such as `channels[3]` or `batch[0].data`. */
  readonly field: string;
  readonly message: string;
  /** `payload_too_large` for data over the payload limit (413); `invalid` for everything else (400). */
  readonly kind: 'invalid' | 'payload_too_large';
}

/** A 400 issue on a field. */
export function invalid(field: string, message: string): ValidationIssue {
  return { field, message: `${field}: ${message}`, kind: 'invalid' };
}

function fieldPath(path: readonly PropertyKey[]): string {
  let field = '';
  for (const part of path) {
    field += typeof part === 'number' ? `[${part}]` : field === '' ? String(part) : `.${String(part)}`;
  }
  return field === '' ? 'body' : field;
}

/** The first issue zod found, as a {@link ValidationIssue} naming its field. */
export function issueOf(error: z.ZodError): ValidationIssue {
  const first = error.issues[0];
  if (first === undefined) return invalid('body', 'is not valid');
  return invalid(fieldPath(first.path), first.message);
}
