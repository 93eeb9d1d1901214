import { DefaultLimits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import type { PresenceSnapshot } from './server-frame.js';

/** A member of a presence channel as declared in signed `channel_data`. */
export interface PresenceMember {
  /** Always a string on the wire, even when the auth endpoint sent a number. */
  readonly userId: string;
  readonly userInfo: unknown;
}

/** Why `channel_data` was refused. */
export interface ChannelDataError {
  readonly reason: 'not_json' | 'missing_user_id' | 'user_id_too_long' | 'user_info_too_large';
  readonly message: string;
}

/** Limits applied to a presence member's declared data. */
export interface MemberLimits {
  readonly maxUserInfoBytes?: number;
  readonly maxUserIdLength?: number;
}

/**
 * Parses presence `channel_data` (`{"user_id": string|number, "user_info"?: any}`) and checks its limits
 * (user info at most 2 KB, user id at most 128 characters by default).
 */
export function parseChannelData(
  channelData: string,
  limits: MemberLimits = {},
): Result<PresenceMember, ChannelDataError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(channelData);
  } catch {
    return fail({ reason: 'not_json', message: 'channel_data is not valid JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail({ reason: 'not_json', message: 'channel_data must be a JSON object' });
  }
  const record = parsed as Record<string, unknown>;
  const rawId = record.user_id;
  const userId = typeof rawId === 'number' && Number.isFinite(rawId) ? String(rawId) : rawId;
  if (typeof userId !== 'string' || userId.length === 0) {
    return fail({ reason: 'missing_user_id', message: 'channel_data needs a user_id (string or number)' });
  }
  const maxId = limits.maxUserIdLength ?? DefaultLimits.maxPresenceUserIdLength;
  if (userId.length > maxId) {
    return fail({ reason: 'user_id_too_long', message: `user_id is longer than ${maxId} characters` });
  }
  const maxInfo = limits.maxUserInfoBytes ?? DefaultLimits.maxPresenceMemberSizeInKb * 1024;
  if (record.user_info !== undefined && Buffer.byteLength(JSON.stringify(record.user_info)) > maxInfo) {
    return fail({ reason: 'user_info_too_large', message: `user_info is larger than ${maxInfo} bytes` });
  }
  return ok({ userId, userInfo: record.user_info });
}

/** Why sign-in `user_data` was refused. */
export interface UserDataError {
  readonly reason: 'not_json' | 'missing_id' | 'bad_watchlist';
  readonly message: string;
}

/** The signed-in user, from `pusher:signin`'s `user_data` (an object with a non-empty string `id`). */
export interface SignedInUser {
  readonly id: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** User ids from `watchlist` (Pusher's user authentication), without duplicates; empty when absent. */
  readonly watchlist: readonly string[];
}

/** The most user ids a watchlist may hold (Pusher's documented limit). */
export const MAX_WATCHLIST_SIZE = 100;

/** Parses `pusher:signin` `user_data`; pusher-js and the spec require a non-empty string `id`. */
export function parseUserData(userData: string): Result<SignedInUser, UserDataError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(userData);
  } catch {
    return fail({ reason: 'not_json', message: 'user_data is not valid JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail({ reason: 'not_json', message: 'user_data must be a JSON object' });
  }
  const id = (parsed as Record<string, unknown>).id;
  if (typeof id !== 'string' || id.length === 0) {
    return fail({ reason: 'missing_id', message: 'user_data needs a non-empty string id' });
  }
  const raw = (parsed as Record<string, unknown>).watchlist;
  if (raw === undefined) return ok({ id, data: parsed as Record<string, unknown>, watchlist: [] });
  if (!Array.isArray(raw) || !raw.every((entry) => typeof entry === 'string' && entry.length > 0)) {
    return fail({
      reason: 'bad_watchlist',
      message: 'user_data.watchlist must be an array of user id strings',
    });
  }
  const watchlist = [...new Set(raw as string[])];
  if (watchlist.length > MAX_WATCHLIST_SIZE) {
    return fail({
      reason: 'bad_watchlist',
      message: `user_data.watchlist has ${watchlist.length} user ids; at most ${MAX_WATCHLIST_SIZE} are allowed`,
    });
  }
  return ok({ id, data: parsed as Record<string, unknown>, watchlist });
}

/** What changed for other subscribers after a socket joined or left. */
export type PresenceChange =
  | { readonly type: 'member_added'; readonly member: PresenceMember }
  | { readonly type: 'member_removed'; readonly userId: string }
  | { readonly type: 'none' };

const NONE: PresenceChange = { type: 'none' };

/**
 * The members of one presence channel. A user with several sockets is one member: `member_added` on the first
 * socket, `member_removed` after the last. The user info shown is the one the first socket declared.
 */
export class PresenceRoster {
  readonly #members = new Map<string, { info: unknown; sockets: Set<string> }>();
  readonly #userBySocket = new Map<string, string>();

  /** The number of distinct users. */
  get memberCount(): number {
    return this.#members.size;
  }

  /** The number of sockets across all users. */
  get socketCount(): number {
    return this.#userBySocket.size;
  }

  /** Tells whether a user has at least one socket in the channel. */
  hasUser(userId: string): boolean {
    return this.#members.has(userId);
  }

  /** Adds a socket for a member; tells whether this made the user a new member. */
  join(socketId: string, member: PresenceMember): PresenceChange {
    if (this.#userBySocket.has(socketId)) return NONE;
    this.#userBySocket.set(socketId, member.userId);
    const existing = this.#members.get(member.userId);
    if (existing) {
      existing.sockets.add(socketId);
      return NONE;
    }
    this.#members.set(member.userId, { info: member.userInfo, sockets: new Set([socketId]) });
    return { type: 'member_added', member };
  }

  /** Removes a socket; tells whether its user has now left the channel. */
  leave(socketId: string): PresenceChange {
    const userId = this.#userBySocket.get(socketId);
    if (userId === undefined) return NONE;
    this.#userBySocket.delete(socketId);
    const entry = this.#members.get(userId);
    if (!entry) return NONE;
    entry.sockets.delete(socketId);
    if (entry.sockets.size > 0) return NONE;
    this.#members.delete(userId);
    return { type: 'member_removed', userId };
  }

  /** The user id a socket joined as, if it is in the channel. */
  userOf(socketId: string): string | undefined {
    return this.#userBySocket.get(socketId);
  }

  /** The members as `subscription_succeeded` lists them. */
  snapshot(): PresenceSnapshot {
    const ids: string[] = [];
    const entries: Array<[string, unknown]> = [];
    for (const [userId, entry] of this.#members) {
      ids.push(userId);
      entries.push([userId, entry.info ?? null]);
    }
    // fromEntries defines own properties, so a user id such as "__proto__" is listed instead of setting the
    // prototype of the hash and vanishing from the encoded snapshot.
    return { ids, hash: Object.fromEntries(entries), count: ids.length };
  }

  /** The distinct user ids. */
  userIds(): string[] {
    return [...this.#members.keys()];
  }

  /** The ids of the sockets in the channel. */
  socketIds(): string[] {
    return [...this.#userBySocket.keys()];
  }
}
