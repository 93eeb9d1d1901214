/**
 * Tells whether a request's Origin is allowed by a list of exact origins (`https://app.example.com`),
 * host patterns (`*.example.com`, `app.example.com`) or `*` for any. A missing Origin (non-browser clients)
 * is allowed only when the list allows every origin.
 */
export function isOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  if (!origin) return false;
  const lowered = origin.toLowerCase();
  let host: string;
  try {
    host = new URL(lowered).host;
  } catch {
    return false;
  }
  for (const entry of allowed) {
    const pattern = entry.toLowerCase();
    if (pattern === lowered || pattern === host) return true;
    if (pattern.includes('://')) {
      // An origin pattern with a scheme and a wildcard host, e.g. https://*.example.com
      const [scheme, rest = ''] = pattern.split('://');
      if (lowered.startsWith(`${scheme}://`) && matchesHost(host, rest)) return true;
    } else if (matchesHost(host, pattern)) {
      return true;
    }
  }
  return false;
}

function matchesHost(host: string, pattern: string): boolean {
  if (!pattern.startsWith('*.')) return host === pattern;
  const suffix = pattern.slice(1); // ".example.com"
  return host.endsWith(suffix) && host.length > suffix.length;
}
