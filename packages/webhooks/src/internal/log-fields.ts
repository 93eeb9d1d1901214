/** The URL without credentials or query, for logs: a token in a webhook URL must not reach them. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)'; // Validated by the config schema; only a hand-built app could get here.
  }
}

/** An error's message with its cause's (fetch hides the reason a request failed in `cause`). */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
