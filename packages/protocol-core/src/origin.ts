/**
 * Tells whether a request's Origin is allowed by a list of exact origins (`https://app.example.com`),
 * host patterns (`*.example.com`, `app.example.com`) or `*` for any. An entry with a scheme is an origin and
 * matches its port exactly; a host pattern without a port matches that host on any port (`localhost` allows
 * `http://localhost:5173`). A missing Origin (non-browser clients) is allowed only when the list allows every
 * origin.
 */
export function isOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  if (!origin) return false;
  const lowered = origin.toLowerCase();
  let host: string;
  let hostname: string;
  try {
    ({ host, hostname } = new URL(lowered));
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
    } else if (matchesHost(HAS_PORT.test(pattern) ? host : hostname, pattern)) {
      return true;
    }
  }
  return false;
}

const HAS_PORT = /:\d+$/;

function matchesHost(host: string, pattern: string): boolean {
  if (!pattern.startsWith('*.')) return host === pattern;
  const suffix = pattern.slice(1); // ".example.com"
  return host.endsWith(suffix) && host.length > suffix.length;
}
