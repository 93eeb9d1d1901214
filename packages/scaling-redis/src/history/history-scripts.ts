// The Lua scripts of the channel history. One channel's history is two keys under one hash tag (so they share a slot
// on a Redis Cluster): a hash `meta` {epoch, last, bytes, why} and a stream of frames whose entry ids are
// `<serial>-<ms>`: the serial first, so a read "after serial N" is a plain XRANGE from `N+1`, and the append time as
// the sequence part, so trimming by age needs no field of its own. Entries only ever leave from the head, so the held
// serials are always one contiguous run ending at `last`.
//
// Why a script doing the counter, the XADD and the trim at once rather than INCR then XADD with that id: the frame
// carries its serial, so with two commands a node would need the INCR's answer before it could send the XADD (two
// round trips per event), and two nodes could XADD their serials out of order (the later XADD of the smaller id is
// refused). One script is one round trip and keeps a channel's counter, epoch and stream consistent.

import { createHash } from 'node:crypto';

/** A Lua script run with EVALSHA (EVAL the first time a server has not seen it). */
export interface HistoryScript {
  readonly source: string;
  readonly sha: string;
}

function script(body: string): HistoryScript {
  const source = `${PRELUDE}\n${body}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// `now` in ms from the Redis server's clock (every node agrees on ages); `ensure` gives a channel its epoch (a lost or
// flushed Redis loses the epoch, and every earlier position is then told `restarted`); `trim` drops the head entries
// past the count, byte or age bound and notes why the newest dropped one went, which is what a reader reaching before
// the head is told. `settle` sees a stream that vanished by its expiry while `bytes` still counted its frames: they
// aged out as a whole, so `bytes` goes back to 0 and the drop is noted `expired`. The append settles before its XADD,
// which would otherwise start a fresh stream under the old count (the byte cap trimming too early, the size gauges
// reading too much, and a reader from before the gap told `trimmed`).
const PRELUDE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function ensure(meta, stream, fresh, ttl)
  local epoch = redis.call('HGET', meta, 'epoch')
  if not epoch then
    epoch = fresh
    redis.call('DEL', stream)
    redis.call('HSET', meta, 'epoch', epoch, 'last', 0, 'bytes', 0)
  end
  redis.call('PEXPIRE', meta, ttl)
  return epoch
end
local function idOf(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local function settle(meta, stream)
  local len = redis.call('XLEN', stream)
  local bytes = tonumber(redis.call('HGET', meta, 'bytes') or '0')
  if len == 0 and bytes ~= 0 then
    bytes = 0
    redis.call('HSET', meta, 'bytes', 0, 'why', 'expired')
  end
  return len, bytes
end
local function trim(meta, stream, maxEvents, maxAgeMs, maxBytes)
  local len, bytes = settle(meta, stream)
  if len == 0 then return end
  local cutoff = now - maxAgeMs
  local cursor = '-'
  local drop, why = nil, nil
  while len > 0 do
    local batch = redis.call('XRANGE', stream, cursor, '+', 'COUNT', 16)
    if #batch == 0 then break end
    local kept = false
    for _, entry in ipairs(batch) do
      local _, at = idOf(entry[1])
      local reason = nil
      if at < cutoff then reason = 'expired'
      elseif len > maxEvents or bytes > maxBytes then reason = 'trimmed' end
      if not reason then kept = true break end
      len = len - 1
      bytes = bytes - string.len(entry[2][2])
      drop, why = entry[1], reason
    end
    if kept then break end
    cursor = '(' .. batch[#batch][1]
  end
  if drop then
    local serial = idOf(drop)
    redis.call('XTRIM', stream, 'MINID', (serial + 1) .. '-0')
    redis.call('HSET', meta, 'bytes', bytes, 'why', why)
  end
end
local function firstSerial(stream)
  local head = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
  if head[1] then return (idOf(head[1][1])) end
  return -1
end
local function framesFrom(stream, from, count)
  local entries
  if count then entries = redis.call('XRANGE', stream, from .. '-0', '+', 'COUNT', count)
  else entries = redis.call('XRANGE', stream, from .. '-0', '+') end
  local frames = {}
  for i, entry in ipairs(entries) do frames[i] = entry[2][2] end
  return frames
end`;

/**
 * KEYS: meta, stream. ARGV: fresh epoch, max events, max age ms, max bytes, meta ttl ms, then the frame's three parts
 * around its serial and epoch. Returns {serial, epoch}.
 */
export const appendScript = script(`local epoch = ensure(KEYS[1], KEYS[2], ARGV[1], ARGV[5])
settle(KEYS[1], KEYS[2])
local serial = redis.call('HINCRBY', KEYS[1], 'last', 1)
local frame = ARGV[6] .. serial .. ARGV[7] .. epoch .. ARGV[8]
redis.call('XADD', KEYS[2], serial .. '-' .. now, 'f', frame)
redis.call('HINCRBY', KEYS[1], 'bytes', string.len(frame))
trim(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {serial, epoch}`);

/** KEYS: meta, stream. ARGV: fresh epoch, meta ttl ms. Returns {last serial, epoch}. */
export const positionScript = script(`local epoch = ensure(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return {tonumber(redis.call('HGET', KEYS[1], 'last')), epoch}`);

/**
 * KEYS: meta, stream. ARGV: after serial, after epoch, fresh epoch, max events, max age ms, max bytes, meta ttl ms.
 * Returns {1, frames} or {0, reason, first serial (-1: none), last serial, epoch}.
 */
export const readScript = script(`local known = redis.call('EXISTS', KEYS[1]) == 1
local epoch = ensure(KEYS[1], KEYS[2], ARGV[3], ARGV[7])
trim(KEYS[1], KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local after = tonumber(ARGV[1])
local first = firstSerial(KEYS[2])
local reason = nil
if (not known) or ARGV[2] ~= epoch or after > last then reason = 'restarted'
elseif first == -1 and after < last then reason = redis.call('HGET', KEYS[1], 'why') or 'expired'
elseif first ~= -1 and after + 1 < first then reason = redis.call('HGET', KEYS[1], 'why') or 'trimmed' end
if reason then return {0, reason, first, last, epoch} end
return {1, framesFrom(KEYS[2], after + 1, nil)}`);

/**
 * KEYS: meta, stream. ARGV: after serial, limit, fresh epoch, max events, max age ms, max bytes, meta ttl ms.
 * Returns {last serial, epoch, first serial (-1: none), frames}.
 */
export const listScript = script(`local epoch = ensure(KEYS[1], KEYS[2], ARGV[3], ARGV[7])
trim(KEYS[1], KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local first = firstSerial(KEYS[2])
local from = tonumber(ARGV[1]) + 1
if first ~= -1 and first > from then from = first end
return {last, epoch, first, framesFrom(KEYS[2], from, tonumber(ARGV[2]))}`);
