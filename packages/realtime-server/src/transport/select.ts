import { RealtimeServerError } from '../errors.js';
import { createPortableTransport } from './portable.js';
import type { TransportFactory, TransportName, TransportPreference } from './types.js';
import { createUwsTransportFrom } from './uws.js';
import { OFFICIAL_UWS_INSTALL } from './uws-advice.js';
import { loadNativeUws, runtimeTarget, UWS_CANDIDATES, type UwsAttempt } from './uws-loader.js';

/** The transport a server will run, and why, in one plain sentence for the start-up log. */
export interface SelectedTransport {
  readonly name: TransportName;
  /** True when a native uWebSockets.js build runs. */
  readonly native: boolean;
  readonly reason: string;
  readonly create: TransportFactory;
}

/** What to install for a native build on this Node line, for the messages below and the README. */
export function nativeBuildAdvice(): string {
  return (
    'For native speed install an official uWebSockets.js build for this Node version under the name ' +
    `\`uWebSockets.js\` (e.g. \`${OFFICIAL_UWS_INSTALL}\`), ` +
    'or run on glibc ≥ 2.38 (where the bundled @btc-vision/uwebsockets.js build loads on Node 20–25), ' +
    'or on Node 20 (the bundled @trufflesuite build loads on glibc 2.36).'
  );
}

function describeAttempts(attempts: readonly UwsAttempt[]): string {
  return attempts.map((attempt) => `${attempt.name}: ${attempt.reason}`).join('; ');
}

/**
 * Picks the transport: `auto` runs a native uWebSockets.js build when one loads and the portable one otherwise;
 * `uws` and `portable` force one.
 *
 * @throws {RealtimeServerError} `transport_unavailable` when `uws` is forced and no native build loads.
 */
export function selectTransport(
  preference: TransportPreference = 'auto',
  candidates: readonly string[] = UWS_CANDIDATES,
): SelectedTransport {
  const { platform, arch, abi } = runtimeTarget();
  const node = `Node ${process.versions.node} (ABI ${abi}, ${platform}-${arch})`;
  if (preference === 'portable') {
    return {
      name: 'portable',
      native: false,
      reason: `portable (node:http), as configured, on ${node}`,
      create: createPortableTransport,
    };
  }
  const load = loadNativeUws(candidates);
  if (load.ok) {
    const { module } = load.uws;
    return {
      name: 'uws',
      native: true,
      reason: `uws (native uWebSockets.js from ${load.uws.source}) on ${node}`,
      create: (options) => createUwsTransportFrom(module, options),
    };
  }
  const why = describeAttempts(load.attempts);
  if (preference === 'uws') {
    throw new RealtimeServerError(
      'transport_unavailable',
      `transport "uws" was asked for, but no native uWebSockets.js build loads on ${node}. Tried ${why}. ` +
        `${nativeBuildAdvice()} Or set transport to "auto" or "portable".`,
    );
  }
  return {
    name: 'portable',
    native: false,
    reason:
      `portable (node:http): no native uWebSockets.js build loads on ${node}. Tried ${why}. ` +
      nativeBuildAdvice(),
    create: createPortableTransport,
  };
}
