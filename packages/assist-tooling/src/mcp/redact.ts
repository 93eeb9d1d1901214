const SECRET_KEY =
  /pass(word|wd)?|secret|token|api[-_]?key|private|credential|auth|salt|signature|cookie|session|dsn/i;
const SECRET_VALUE = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /^(sk|pk|rk)_(live|test)_[A-Za-z0-9]{8,}/,
  /^sk-[A-Za-z0-9_-]{16,}/,
  /^gh[pousr]_[A-Za-z0-9]{20,}/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}/,
  /^AKIA[0-9A-Z]{16}$/,
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/,
];

export const REDACTED = '[redacted]';

/** Hides the password of a URL with credentials (`postgres://u:p@h/db` → `postgres://u:***@h/db`). */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]+@/i, '$1:***@');
}

/** A config or env value fit to show an agent: secrets by key name or by shape are replaced. */
export function redactValue(key: string, value: unknown): unknown {
  if (typeof value !== 'string') {
    if (value !== null && typeof value === 'object') return redactTree(value);
    return SECRET_KEY.test(key) && value !== null && typeof value !== 'boolean' ? REDACTED : value;
  }
  if (SECRET_VALUE.some((pattern) => pattern.test(value))) return REDACTED;
  const url = redactUrl(value);
  if (url !== value) return url;
  if (SECRET_KEY.test(key) && value !== '') return REDACTED;
  return value;
}

/** Redacts every value of an object or array, recursively, by its key. */
export function redactTree(value: object): unknown {
  if (Array.isArray(value)) return value.map((item, index) => redactValue(String(index), item));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(key, item)]));
}
