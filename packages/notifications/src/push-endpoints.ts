/**
 * The hosts of the push services browsers subscribe through: Google's FCM (Chrome, Edge on Android, Opera…),
 * Mozilla's autopush (Firefox), Apple's (Safari) and Microsoft's WNS (Edge on Windows). A push goes to the URL a
 * browser gave, so accepting only these keeps the service from posting to hosts it was never meant to reach.
 */
export const KNOWN_PUSH_SERVICES: readonly string[] = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
];

// A host name or IPv4 address, optionally `*.` in front (any host below it) and `:port` behind (only that port).
const PATTERN = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/** True for a push endpoint pattern: `push.example`, `*.push.example`, `127.0.0.1:8443`, or `*` (any host). */
export function isPushEndpointPattern(pattern: string): boolean {
  return pattern === '*' || PATTERN.test(pattern.toLowerCase());
}

function matches(pattern: string, host: string, port: string): boolean {
  const colon = pattern.lastIndexOf(':');
  const [name, wanted] =
    colon < 0 ? [pattern, undefined] : [pattern.slice(0, colon), pattern.slice(colon + 1)];
  if (wanted !== undefined && wanted !== port) return false;
  // `*.push.apple.com` takes `web.push.apple.com` and deeper, not `push.apple.com` itself.
  return name.startsWith('*.') ? host.endsWith(name.slice(1)) : host === name;
}

/**
 * Makes the check of `endpointAllowed` from host patterns (see {@link isPushEndpointPattern}); a host matches
 * case-insensitively, on any port unless the pattern names one.
 *
 * @example
 * createPushSubscriptionApi({ subscriptions, publicKey, endpointAllowed: pushEndpointsAllowed(KNOWN_PUSH_SERVICES) });
 */
export function pushEndpointsAllowed(patterns: readonly string[]): (endpoint: URL) => boolean {
  const lower = patterns.map((pattern) => pattern.toLowerCase());
  if (lower.includes('*')) return () => true;
  return (endpoint) => {
    const port = endpoint.port || (endpoint.protocol === 'http:' ? '80' : '443');
    return lower.some((pattern) => matches(pattern, endpoint.hostname.toLowerCase(), port));
  };
}
