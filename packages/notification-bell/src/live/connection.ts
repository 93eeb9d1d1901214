import type { LiveState } from '../bell-store.js';

/** What a live connection tells the bell: each event on the user's channel, and when it goes up or down. */
export interface LiveHandlers {
  onEvent(event: string, payload: unknown): void;
  onState(state: Exclude<LiveState, 'off'>): void;
  /** A failure the user should see (authorisation refused, hub unreachable). */
  onError(message: string): void;
}

/** An open live connection. */
export interface LiveConnection {
  close(): void;
}

/** Whether to poll now: always in `poll` and `combined` mode, in `push` mode only while the connection is not up. */
export function shouldPoll(mode: 'push' | 'poll' | 'combined' | 'none', state: LiveState): boolean {
  if (mode === 'none') return false;
  if (mode === 'push') return state !== 'live';
  return true;
}
