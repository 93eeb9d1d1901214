// The door: per-address limits checked at the upgrade, before any protocol state exists. One address may hold at
// most `maxConnectionsPerIp` open sockets on this node and open at most `maxUpgradesPerIpPerSecond` (a token bucket
// with one second's burst); over either, the upgrade is answered 429 with `Retry-After` and no socket opens. An
// address's state is dropped once it has no sockets and a full bucket, so memory follows the addresses active now.

import { clientAddress, type TrustedProxies } from '../client-address.js';
import { formatIp } from '../ip-address.js';
import type { ServerMetrics } from '../metrics.js';
import { fullBucket, isFull, type TokenBucket, takeToken } from '../token-bucket.js';
import { UpgradeRefusal, type UpgradeRequest } from '../transport/types.js';

/** The per-address limits; 0 turns one off. */
export interface AddressLimitOptions {
  readonly maxConnectionsPerIp: number;
  readonly maxUpgradesPerIpPerSecond: number;
  readonly trustedProxies: TrustedProxies;
}

interface AddressState {
  sockets: number;
  bucket: TokenBucket | undefined;
}

// A capped address cannot know when one of its sockets will close: a few seconds spreads the retries out.
const CONNECTIONS_RETRY_AFTER_SECONDS = 5;

/** Per-address counts of one server. */
export interface AddressLimits {
  /** Whether any limit is on (when not, nothing is parsed or kept). */
  readonly active: boolean;
  /**
   * The client address of a request from `peer` carrying `forwardedFor` (see `clientAddress`), formatted; undefined
   * when `peer` is not an address.
   */
  clientOf(peer: string, forwardedFor: string): string | undefined;
  /**
   * Checks an upgrade: the client's address (the key to pass to {@link opened}) when let in, a refusal when over a
   * limit, undefined when no limit is on.
   */
  admit(request: UpgradeRequest, now: number): string | UpgradeRefusal | undefined;
  /** A socket of this address opened. */
  opened(address: string): void;
  /** A socket of this address closed. */
  closed(address: string, now: number): void;
  /** Drops the state of addresses with no socket and a full bucket. */
  prune(now: number): void;
  /** Addresses with state kept (for tests and metrics). */
  readonly size: number;
}

export function createAddressLimits(options: AddressLimitOptions, metrics: ServerMetrics): AddressLimits {
  const { maxConnectionsPerIp: maxSockets, maxUpgradesPerIpPerSecond: rate, trustedProxies } = options;
  const burst = Math.max(1, Math.ceil(rate));
  const addresses = new Map<string, AddressState>();

  function isIdle(state: AddressState, now: number): boolean {
    return state.sockets === 0 && (!state.bucket || isFull(state.bucket, rate, burst, now));
  }

  function refuse(reason: 'connections_per_ip' | 'upgrades_per_ip', retryAfter: number): UpgradeRefusal {
    metrics.upgradesRefused.inc({ reason });
    const message =
      reason === 'connections_per_ip'
        ? `Too many connections from this address (max_connections_per_ip ${maxSockets})`
        : `Too many connection attempts from this address (max_upgrades_per_ip_per_second ${rate})`;
    return new UpgradeRefusal(429, message, { 'retry-after': String(retryAfter) });
  }

  function clientOf(peer: string, forwardedFor: string): string | undefined {
    const bytes = clientAddress(peer, forwardedFor, trustedProxies);
    return bytes && formatIp(bytes);
  }

  return {
    active: maxSockets > 0 || rate > 0,
    clientOf,

    admit(request, now) {
      if (maxSockets === 0 && rate === 0) return undefined;
      const address = clientOf(request.remoteAddress, request.forwardedFor);
      // A transport that cannot tell the peer (none here does) is not limited rather than lumped together.
      if (address === undefined) return undefined;
      let state = addresses.get(address);
      if (maxSockets > 0 && state && state.sockets >= maxSockets) {
        return refuse('connections_per_ip', CONNECTIONS_RETRY_AFTER_SECONDS);
      }
      if (rate > 0) {
        if (!state) {
          state = { sockets: 0, bucket: undefined };
          addresses.set(address, state);
        }
        state.bucket ??= fullBucket(burst, now);
        const wait = takeToken(state.bucket, rate, burst, now);
        if (wait > 0) return refuse('upgrades_per_ip', wait);
      }
      return address;
    },

    opened(address) {
      if (maxSockets === 0) return;
      const state = addresses.get(address);
      if (state) state.sockets += 1;
      else addresses.set(address, { sockets: 1, bucket: undefined });
    },

    closed(address, now) {
      const state = addresses.get(address);
      if (!state) return;
      if (maxSockets > 0) state.sockets -= 1;
      if (isIdle(state, now)) addresses.delete(address);
    },

    prune(now) {
      for (const [address, state] of addresses) if (isIdle(state, now)) addresses.delete(address);
    },

    get size() {
      return addresses.size;
    },
  };
}
