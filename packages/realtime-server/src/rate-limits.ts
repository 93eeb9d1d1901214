import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Per-connection frame limits: every inbound frame, and client events on their own. */
export interface ConnectionLimits {
  /** Frames of any kind a socket may send per second; off when absent. */
  readonly messagesPerSecond?: number | undefined;
  /** Close the socket with 4009 after the 4301 error when the frame limit is hit. */
  readonly terminateOnLimit?: boolean | undefined;
  /** Client events a socket may send per second (Pusher allows 10); off when absent. */
  readonly clientEventsPerSecond?: number | undefined;
}

/** Which limit a frame went over. */
export type LimitHit = 'messages' | 'client_events';

function limiterFor(points: number | undefined, keyPrefix: string): RateLimiterMemory | undefined {
  if (points === undefined || !Number.isFinite(points) || points <= 0) return undefined;
  return new RateLimiterMemory({ keyPrefix, points, duration: 1 });
}

/**
 * Counts frames per socket with rate-limiter-flexible's in-memory limiter (connection limits are always local:
 * a socket lives on one node).
 */
export class SocketRateLimiter {
  readonly #messages: RateLimiterMemory | undefined;
  readonly #clientEvents: RateLimiterMemory | undefined;
  readonly terminateOnLimit: boolean;

  constructor(limits: ConnectionLimits, appId: string) {
    this.#messages = limiterFor(limits.messagesPerSecond, `${appId}:messages`);
    this.#clientEvents = limiterFor(limits.clientEventsPerSecond, `${appId}:client_events`);
    this.terminateOnLimit = limits.terminateOnLimit ?? false;
  }

  /** Whether any frame needs counting at all; when not, frames skip the limiter entirely. */
  get active(): boolean {
    return this.#messages !== undefined || this.#clientEvents !== undefined;
  }

  /** Whether client events are counted on their own. */
  get limitsClientEvents(): boolean {
    return this.#clientEvents !== undefined;
  }

  /** Counts one frame of a socket; resolves with the limit it went over, if any. */
  async take(socketId: string, clientEvent: boolean): Promise<LimitHit | undefined> {
    if (this.#messages && !(await allowed(this.#messages, socketId))) return 'messages';
    if (clientEvent && this.#clientEvents && !(await allowed(this.#clientEvents, socketId)))
      return 'client_events';
    return undefined;
  }
}

async function allowed(limiter: RateLimiterMemory, key: string): Promise<boolean> {
  try {
    await limiter.consume(key, 1);
    return true;
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) return false;
    throw outcome;
  }
}
