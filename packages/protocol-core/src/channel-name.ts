import { DefaultLimits } from './limits.js';
import { fail, ok, type Result } from './result.js';

/**
 * The kinds of channel the protocol knows, decided by an anchored prefix of the name
 * ("Channel naming conventions" and "Cache channels" in the Pusher docs).
 */
export type ChannelKind =
  | 'public'
  | 'private'
  | 'presence'
  | 'private-encrypted'
  | 'cache'
  | 'private-cache'
  | 'private-encrypted-cache'
  | 'presence-cache'
  | 'server-to-user';

/** What the server must do with a channel of a given kind. */
export interface ChannelTraits {
  readonly kind: ChannelKind;
  /** A subscription needs a signed `auth` (private, encrypted and presence kinds). */
  readonly requiresAuth: boolean;
  /** Members are tracked and `channel_data` is signed. */
  readonly presence: boolean;
  /** Payloads are end-to-end encrypted: relayed untouched, no client events. */
  readonly encrypted: boolean;
  /** The last event is kept and replayed to new subscribers (or `pusher:cache_miss`). */
  readonly cache: boolean;
  /** Clients may send `client-*` events on it. */
  readonly clientEvents: boolean;
}

/** The prefix of the personal channel a signed-in user receives server-to-user events on. */
export const SERVER_TO_USER_PREFIX = '#server-to-user-';

// Longest prefixes first: "private-encrypted-cache-" must win over "private-encrypted-" and "private-".
const PREFIXES: ReadonlyArray<readonly [string, ChannelKind]> = [
  ['private-encrypted-cache-', 'private-encrypted-cache'],
  ['private-encrypted-', 'private-encrypted'],
  ['private-cache-', 'private-cache'],
  ['presence-cache-', 'presence-cache'],
  ['private-', 'private'],
  ['presence-', 'presence'],
  ['cache-', 'cache'],
  [SERVER_TO_USER_PREFIX, 'server-to-user'],
];

function traitsOf(kind: ChannelKind): ChannelTraits {
  const presence = kind === 'presence' || kind === 'presence-cache';
  const encrypted = kind === 'private-encrypted' || kind === 'private-encrypted-cache';
  const privateLike = kind === 'private' || kind === 'private-cache';
  return {
    kind,
    requiresAuth: presence || encrypted || privateLike,
    presence,
    encrypted,
    cache:
      kind === 'cache' ||
      kind === 'private-cache' ||
      kind === 'private-encrypted-cache' ||
      kind === 'presence-cache',
    clientEvents: presence || privateLike,
  };
}

const TRAITS: ReadonlyMap<ChannelKind, ChannelTraits> = new Map(
  (['public', ...PREFIXES.map(([, kind]) => kind)] as ChannelKind[]).map((kind) => [kind, traitsOf(kind)]),
);

/** Tells which kind a channel name is, by its anchored prefix (`foo-private-x` is public). */
export function channelKind(name: string): ChannelKind {
  for (const [prefix, kind] of PREFIXES) {
    if (name.startsWith(prefix)) return kind;
  }
  return 'public';
}

/** Describes what a channel of this name requires and allows. */
export function describeChannel(name: string): ChannelTraits {
  return TRAITS.get(channelKind(name)) as ChannelTraits;
}

/** Why a channel name was refused. */
export interface ChannelNameError {
  readonly reason: 'empty' | 'too_long' | 'invalid_characters';
  readonly message: string;
}

// Pusher allows A-Z a-z 0-9 _ - = @ , . ; in channel names; "#" only as the start of "#server-to-user-".
const NAME_CHARS = /^[A-Za-z0-9_\-=@,.;]+$/;

/**
 * Checks a channel name: allowed characters and maximum length (164 by default).
 *
 * @example
 * validateChannelName('private-orders.42') // { ok: true, value: 'private-orders.42' }
 */
export function validateChannelName(
  name: string,
  maxLength: number = DefaultLimits.maxChannelNameLength,
): Result<string, ChannelNameError> {
  if (name.length === 0) return fail({ reason: 'empty', message: 'Channel name is empty' });
  if (name.length > maxLength) {
    return fail({ reason: 'too_long', message: `Channel name is longer than ${maxLength} characters` });
  }
  const body = name.startsWith(SERVER_TO_USER_PREFIX) ? name.slice(1) : name;
  if (!NAME_CHARS.test(body)) {
    return fail({
      reason: 'invalid_characters',
      message: 'Channel name may only contain A-Z, a-z, 0-9, _, -, =, @, comma, . and ;',
    });
  }
  return ok(name);
}

/** The personal channel of a signed-in user. */
export function serverToUserChannel(userId: string): string {
  return `${SERVER_TO_USER_PREFIX}${userId}`;
}
