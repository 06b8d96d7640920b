import { createHash } from 'node:crypto';

/**
 * The sliding log of tenant-auth-core (`slidingLogHit`, see its comment for why a coalesced log) in Lua, so
 * one `EVALSHA` reads, trims, records and sets the TTL atomically, in constant time per hit.
 *
 * The key is a hash. Each entry is a field `<index>` = `"<timestamp>:<count>"`, one per slot of
 * `windowMs / 60` (at most `ENTRY_CAP`), oldest first. Beside them: `h` and `t`, the indexes of the oldest
 * and newest entries; `n`, their total count; `a`, the oldest entry's timestamp; `z`, a copy of the newest
 * entry. A hit reads those five fields, plus two fields for each entry that has left the window since the
 * last hit, and writes them back with one `HSET`: it never reads the whole log. A hit whose slot is not
 * newer than the newest entry's merges into it; the merged entry expires with its latest hit. `PEXPIRE`
 * is set to when the newest entry leaves the window, so Redis drops an idle key by itself. With cost 0
 * the script records nothing (it only forgets expired entries); a negative cost gives hits back, newest
 * first; with a limit (>= 0) nothing is recorded when the count would exceed it.
 *
 * tenant-auth-redis 1.0 kept a list under the bare key; this layout lives under its own keys (see
 * `RedisRateLimitStore`), so instances of both versions can run side by side during a rolling upgrade.
 *
 * KEYS[1] the key; ARGV: now (ms), windowMs, cost, slotMs, entryCap, limit (-1: none).
 * Returns `{ count, resetMs }`: the count the hit makes, recorded or not.
 */
export const SLIDING_LOG_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local slot = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
local limit = tonumber(ARGV[6])
local cutoff = now - window

local function format(ts, count)
  return string.format('%d:%d', ts, count)
end
local function parse(raw)
  local sep = string.find(raw, ':', 1, true)
  return tonumber(string.sub(raw, 1, sep - 1)), tonumber(string.sub(raw, sep + 1))
end

local meta = redis.call('HMGET', key, 'h', 't', 'n', 'a', 'z')
local h = tonumber(meta[1]) or 1
local t = tonumber(meta[2]) or 0
local n = tonumber(meta[3]) or 0
local headTs = tonumber(meta[4])
local tail = meta[5]
local changed = false
local writes = {}

-- Forget the entries that have left the window, oldest first.
while h <= t and headTs <= cutoff do
  local pair = redis.call('HMGET', key, h, h + 1)
  local _, count = parse(pair[1])
  redis.call('HDEL', key, h)
  n = n - count
  h = h + 1
  changed = true
  if h <= t then headTs = parse(pair[2]) end
end
local before = n

local function save()
  if h > t then
    if changed then redis.call('DEL', key) end
    return
  end
  if not changed then return end
  writes[#writes + 1] = 'h'
  writes[#writes + 1] = h
  writes[#writes + 1] = 't'
  writes[#writes + 1] = t
  writes[#writes + 1] = 'n'
  writes[#writes + 1] = n
  writes[#writes + 1] = 'a'
  writes[#writes + 1] = headTs
  writes[#writes + 1] = 'z'
  writes[#writes + 1] = tail
  redis.call('HSET', key, unpack(writes))
end
local function reset()
  if n <= 0 or h > t then return 0 end
  return headTs + window - now
end

if cost < 0 then
  local back = -cost
  while back > 0 and t >= h do
    local ts, count = parse(tail)
    local take = math.min(back, count)
    back = back - take
    n = n - take
    changed = true
    if take < count then
      tail = format(ts, count - take)
      redis.call('HSET', key, t, tail)
    else
      redis.call('HDEL', key, t)
      t = t - 1
      if t >= h then tail = redis.call('HGET', key, t) end
    end
  end
  save()
elseif limit >= 0 and before + cost > limit then
  save()
  local refusedReset = 0
  if before > 0 then refusedReset = reset() end
  return { before + cost, refusedReset }
elseif cost > 0 then
  local tailTs = now
  local merged = false
  if t >= h then
    local ts, count = parse(tail)
    if math.floor(now / slot) <= math.floor(ts / slot) then
      if now > ts then ts = now end
      tailTs = ts
      tail = format(ts, count + cost)
      merged = true
      if t == h then headTs = ts end
    end
  else
    h = t + 1
    headTs = now
  end
  if not merged then
    t = t + 1
    tail = format(now, cost)
  end
  writes[#writes + 1] = t
  writes[#writes + 1] = tail
  n = n + cost
  changed = true
  while t - h + 1 > cap do
    local _, oldestCount = parse(redis.call('HGET', key, h))
    -- The newest entry may have changed in this hit and not be written yet.
    local ts, count = parse(h + 1 == t and tail or redis.call('HGET', key, h + 1))
    local entry = format(ts, count + oldestCount)
    redis.call('HDEL', key, h)
    h = h + 1
    headTs = ts
    if h == t then
      tail = entry
      writes[#writes] = entry
    else
      redis.call('HSET', key, h, entry)
    end
  end
  save()
  redis.call('PEXPIRE', key, tailTs + window - now)
else
  save()
end

return { n, reset() }
`;

/** SHA-1 of the script, for `EVALSHA`. */
export const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');
