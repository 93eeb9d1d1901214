import { createHash } from 'node:crypto';
import type { RedisLink } from './connection.js';

/** A Lua script run with EVALSHA, falling back to EVAL the first time a server has not seen it. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

/** A script from its Lua source, with the SHA1 EVALSHA names it by. */
export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs a script; every key must hash to one slot, which the key layout's `{…}` tags guarantee. */
export async function runScript(
  link: RedisLink,
  lua: Script,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await link.send(keys[0], ['EVALSHA', lua.sha, ...tail]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return link.send(keys[0], ['EVAL', lua.source, ...tail]);
  }
}

/** Lua setting `now` to milliseconds from the Redis server's clock, so that nodes with skewed clocks agree on time. */
export const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS: nodes. ARGV: node id, dead-after ms. Returns 1 when the node was absent or had lapsed (it may have been reaped). */
export const heartbeat = script(`${NOW}
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
if (not last) or (now - tonumber(last) > tonumber(ARGV[2])) then return 1 end
return 0`);

/** KEYS: nodes. ARGV: dead-after ms, 'live' or 'lapsed'. Returns node ids. */
export const nodesByState = script(`${NOW}
local edge = now - tonumber(ARGV[1])
if ARGV[2] == 'live' then return redis.call('ZRANGEBYSCORE', KEYS[1], edge, '+inf') end
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. edge)`);

/** KEYS: nodes. ARGV: node id, dead-after ms, 'check' or 'remove'. Returns 1 when the node is (was) lapsed. */
export const lapsedNode = script(`${NOW}
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (not last) or (now - tonumber(last) <= tonumber(ARGV[2])) then return 0 end
if ARGV[3] == 'remove' then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1`);

/** KEYS: lock. ARGV: token. Deletes the lock only if this holder still owns it. */
export const unlock =
  script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * KEYS: sockets, users, info. ARGV: socket field (node|socketId), user id, user info JSON, max members.
 * Returns {accepted, added, info hash as a flat list}.
 */
export const joinPresence = script(`if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return {1, 0, redis.call('HGETALL', KEYS[3])}
end
local count = redis.call('HGET', KEYS[2], ARGV[2])
if (not count) and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then
  return {0, 0, redis.call('HGETALL', KEYS[3])}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
if not count then redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
return {1, count and 0 or 1, redis.call('HGETALL', KEYS[3])}`);

/** KEYS: sockets, users, info. ARGV: socket field. Returns {removed, user id} or {} when the socket was not there. */
export const leavePresence = script(`local user = redis.call('HGET', KEYS[1], ARGV[1])
if not user then return {} end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HINCRBY', KEYS[2], user, -1) <= 0 then
  redis.call('HDEL', KEYS[2], user)
  redis.call('HDEL', KEYS[3], user)
  return {1, user}
end
return {0, user}`);

/**
 * KEYS: sockets, users, info. ARGV: node prefix (node|), then (socket id, user id, info JSON) for each socket the
 * node holds. Makes the node's sockets in the channel exactly those: adds the missing first (so a user moving from
 * one socket to another stays a member), then removes the rest. Returns {removed user ids, added user ids}.
 */
export const syncNodeSockets = script(`local prefix = ARGV[1]
local want = {}
local added = {}
for i = 2, #ARGV, 3 do
  local field = prefix .. ARGV[i]
  want[field] = true
  if redis.call('HEXISTS', KEYS[1], field) == 0 then
    redis.call('HSET', KEYS[1], field, ARGV[i + 1])
    if redis.call('HINCRBY', KEYS[2], ARGV[i + 1], 1) == 1 then
      redis.call('HSET', KEYS[3], ARGV[i + 1], ARGV[i + 2])
      added[#added + 1] = ARGV[i + 1]
    end
  end
end
local removed = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local field = all[i]
  if string.sub(field, 1, #prefix) == prefix and not want[field] then
    redis.call('HDEL', KEYS[1], field)
    if redis.call('HINCRBY', KEYS[2], all[i + 1], -1) <= 0 then
      redis.call('HDEL', KEYS[2], all[i + 1])
      redis.call('HDEL', KEYS[3], all[i + 1])
      removed[#removed + 1] = all[i + 1]
    end
  end
end
return {removed, added}`);

/** KEYS: connections hash. ARGV: node id, max, node ids to leave out (lapsed). Returns 1 when admitted. */
export const admitConnection = script(`local skip = {}
for i = 3, #ARGV do skip[ARGV[i]] = true end
local all = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #all, 2 do
  if not skip[all[i]] then total = total + tonumber(all[i + 1]) end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return 1`);

/** KEYS: connections hash. ARGV: node id. */
export const releaseConnection = script(`if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1`);

/** KEYS: a hash. ARGV: field, value, … Replaces the whole hash at once (readers never see it empty half-way). */
export const replaceHash = script(`redis.call('DEL', KEYS[1])
-- In slices: unpack() of thousands of values overflows Lua's stack.
for i = 1, #ARGV, 1000 do
  redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return 1`);

/** KEYS: cache key. ARGV: event, data, frame, ttl ms. */
export const storeCachedEvent = script(`redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'event', ARGV[1], 'data', ARGV[2], 'frame', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`);

/** KEYS: cache key. Returns {event, data, frame, ttl ms} or {} when absent. */
export const readCachedEvent = script(`local v = redis.call('HMGET', KEYS[1], 'event', 'data', 'frame')
local ttl = redis.call('PTTL', KEYS[1])
if (not v[1]) or ttl <= 0 then return {} end
return {v[1], v[2], v[3], ttl}`);

/**
 * KEYS: a channel's occupancy set. ARGV: node id, '1' (the node holds subscribers) or '0' (it holds none). Returns 1
 * when this made the channel occupied cluster-wide, -1 when it made it vacated, 0 otherwise: one node, once.
 */
export const occupancy = script(`local before = redis.call('SCARD', KEYS[1])
if ARGV[2] == '1' then redis.call('SADD', KEYS[1], ARGV[1]) else redis.call('SREM', KEYS[1], ARGV[1]) end
local after = redis.call('SCARD', KEYS[1])
if before == 0 and after > 0 then return 1 end
if before > 0 and after == 0 then return -1 end
return 0`);
