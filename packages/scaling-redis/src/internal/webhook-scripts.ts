import { createHash } from 'node:crypto';
import type { Script } from './scripts.js';

// The Lua of the webhook queue. Every key carries the `{webhooks}` hash tag (see webhook-queue.ts), so one script
// may touch the lane streams, the due set and the counters together, also in a Redis Cluster.
//
// Invariant kept by these scripts: a lane's stream has at most one pending (delivered, unacked) entry, its head.
// `due` scores each lane with the time it may next be claimed: 0 for new work, a lease's end, or a retry's due time.

export type WebhookScript = Script;

const script = (source: string): Script => ({
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** Whether `consumer` holds entry `id` of the stream. */
const HOLDS = `local function holds(stream, group, id, consumer)
  local pending = redis.call('XPENDING', stream, group, id, id, 1)
  return #pending == 1 and pending[1][2] == consumer
end
`;

/**
 * KEYS: stream, due, counts. ARGV: lane, app id, events, max events ('' for none), job JSON, group.
 * Returns 1 when queued, 0 when the app's queue is full.
 */
export const enqueue = script(`local queued = tonumber(redis.call('HGET', KEYS[3], ARGV[2]) or '0')
if ARGV[4] ~= '' and queued + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[6], '0', 'MKSTREAM') end
redis.call('XADD', KEYS[1], '*', 'app', ARGV[2], 'events', ARGV[3], 'job', ARGV[5])
redis.call('HINCRBY', KEYS[3], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[1])
return 1`);

/**
 * KEYS: due, attempts. ARGV: lane stream key prefix, group, consumer, max, lease ms.
 * Returns {lane, id, job JSON, attempts} for each job leased to the consumer.
 */
export const claim = script(`${NOW}
local max = tonumber(ARGV[4])
local lease = tonumber(ARGV[5])
local out = {}
local lanes = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max * 2)
for _, lane in ipairs(lanes) do
  if #out >= max then break end
  local stream = ARGV[1] .. lane
  local entry = nil
  if redis.call('EXISTS', stream) == 0 then
    redis.call('ZREM', KEYS[1], lane)
  else
    -- The head, when its holder's lease lapsed (a dead node) or it was released for a retry that is now due.
    local auto = redis.call('XAUTOCLAIM', stream, ARGV[2], ARGV[3], lease, '0-0', 'COUNT', 1)
    if #auto[2] > 0 then
      entry = auto[2][1]
    else
      local pending = redis.call('XPENDING', stream, ARGV[2], '-', '+', 1)
      if #pending > 0 then
        -- Held by a live lease: look again when it ends.
        redis.call('ZADD', KEYS[1], now + math.max(lease - tonumber(pending[1][3]), 1), lane)
      else
        local read = redis.call('XREADGROUP', 'GROUP', ARGV[2], ARGV[3], 'COUNT', 1, 'STREAMS', stream, '>')
        if read and read[1] and #read[1][2] > 0 then
          entry = read[1][2][1]
        else
          redis.call('ZREM', KEYS[1], lane)
        end
      end
    end
  end
  if entry then
    redis.call('ZADD', KEYS[1], now + lease, lane)
    local job = ''
    for i = 1, #entry[2], 2 do
      if entry[2][i] == 'job' then job = entry[2][i + 1] end
    end
    local attempts = redis.call('HGET', KEYS[2], lane .. '|' .. entry[1]) or '0'
    out[#out + 1] = {lane, entry[1], job, attempts}
  end
end
return out`);

/**
 * KEYS: stream, due, counts, attempts. ARGV: lane, id, group, consumer.
 * Returns 1 when the consumer held the job and it is gone, 0 otherwise.
 */
export const ack = script(`${NOW}
${HOLDS}
if redis.call('EXISTS', KEYS[1]) == 0 or not holds(KEYS[1], ARGV[3], ARGV[2], ARGV[4]) then return 0 end
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])[1]
local app, events = nil, 0
for i = 1, #entry[2], 2 do
  if entry[2][i] == 'app' then app = entry[2][i + 1] end
  if entry[2][i] == 'events' then events = tonumber(entry[2][i + 1]) end
end
redis.call('XACK', KEYS[1], ARGV[3], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[1] .. '|' .. ARGV[2])
if app and redis.call('HINCRBY', KEYS[3], app, -events) <= 0 then redis.call('HDEL', KEYS[3], app) end
if redis.call('XLEN', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], now, ARGV[1])
end
return 1`);

/**
 * KEYS: stream, due, attempts. ARGV: lane, id, group, consumer, delay ms, lease ms.
 * Counts an attempt and releases the head until the delay is over. Returns 1, or 0 when not held.
 */
export const retryLater = script(`${NOW}
${HOLDS}
if redis.call('EXISTS', KEYS[1]) == 0 or not holds(KEYS[1], ARGV[3], ARGV[2], ARGV[4]) then return 0 end
redis.call('HINCRBY', KEYS[3], ARGV[1] .. '|' .. ARGV[2], 1)
-- Idle for a whole lease already: XAUTOCLAIM in claim takes it once the due set says it is time.
redis.call('XCLAIM', KEYS[1], ARGV[3], ARGV[4], 0, ARGV[2], 'IDLE', ARGV[6], 'JUSTID')
redis.call('ZADD', KEYS[2], now + math.max(tonumber(ARGV[5]), 0), ARGV[1])
return 1`);
