/** True for an absolute `http:` or `https:` URL; relative URLs and other schemes (`javascript:`) are not. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    // Not parseable without a base: a relative URL or not a URL at all, which is the answer.
    return false;
  }
}

/** The part of a URL that can be shown: scheme, host and port, never the path that holds a hook's token. */
export function safeOrigin(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    // An unparseable URL has no origin worth showing, and showing the text could leak a secret.
    return '(unparseable URL)';
  }
}
