import { createHash } from 'node:crypto';

/**
 * The sliding log of tenant-auth-core (`slidingLogHit`, see its comment for why a coalesced log) in Lua, so
 * one `EVALSHA` reads, trims, records and sets the TTL atomically, with two commands whatever the log holds.
 *
 * The key is a string: the total count of its entries (a big-endian double), then the entries, oldest
 * first, 16 bytes each (timestamp and count, two big-endian doubles), one per slot of `windowMs / 60`, at
 * most `ENTRY_CAP`. A hit is one `GET` and one `SET` (or `DEL`, or nothing): it unpacks the entries that
 * have just left the window (usually none) and the newest, never the rest, and keeps a running total
 * instead of summing. A hit whose slot is not newer than the newest entry's merges into it; the merged
 * entry expires with its latest hit. A recording hit sets the TTL (`PX`) to when the newest entry leaves
 * the window, so Redis drops an idle key by itself; other writes keep it (`KEEPTTL`). With cost 0 the
 * script records nothing (it only forgets expired entries); a negative cost gives hits back, newest first;
 * with a limit (>= 0) nothing is recorded when the count would exceed it.
 * This layout lives under its own keys, apart from 1.0's lists (`LAYOUT` in redis-rate-limit-store.ts).
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
local ENTRY = 16

local raw = redis.call('GET', key)
local n = 0
local entries = ''
if raw then
  n = struct.unpack('>d', raw)
  entries = string.sub(raw, 9)
end
local size = #entries / ENTRY

-- Forget the entries that have left the window, oldest first.
local gone = 0
while gone < size do
  local ts, count = struct.unpack('>dd', entries, gone * ENTRY + 1)
  if ts > cutoff then break end
  n = n - count
  gone = gone + 1
end
local changed = gone > 0
if changed then
  entries = string.sub(entries, gone * ENTRY + 1)
  size = size - gone
end
local before = n

-- ttl: a new TTL in ms, or nil to keep the key's.
local function save(ttl)
  if size == 0 then
    if raw then redis.call('DEL', key) end
  elseif ttl then
    redis.call('SET', key, struct.pack('>d', n) .. entries, 'PX', ttl)
  elseif changed then
    redis.call('SET', key, struct.pack('>d', n) .. entries, 'KEEPTTL')
  end
end
local function reset()
  if n <= 0 or size == 0 then return 0 end
  return struct.unpack('>d', entries) + window - now
end

if cost < 0 then
  local back = -cost
  while back > 0 and size > 0 do
    local offset = (size - 1) * ENTRY
    local ts, count = struct.unpack('>dd', entries, offset + 1)
    local take = math.min(back, count)
    back = back - take
    n = n - take
    changed = true
    if take < count then
      entries = string.sub(entries, 1, offset) .. struct.pack('>dd', ts, count - take)
    else
      entries = string.sub(entries, 1, offset)
      size = size - 1
    end
  end
  save(nil)
elseif limit >= 0 and before + cost > limit then
  save(nil)
  return { before + cost, reset() }
elseif cost > 0 then
  local tailTs = now
  local merged = false
  if size > 0 then
    local offset = (size - 1) * ENTRY
    local ts, count = struct.unpack('>dd', entries, offset + 1)
    if math.floor(now / slot) <= math.floor(ts / slot) then
      if now > ts then ts = now end
      tailTs = ts
      entries = string.sub(entries, 1, offset) .. struct.pack('>dd', ts, count + cost)
      merged = true
    end
  end
  if not merged then
    entries = entries .. struct.pack('>dd', now, cost)
    size = size + 1
  end
  n = n + cost
  -- Only when the window of a key grows: merge the oldest entry into the next.
  while size > cap do
    local _, oldest = struct.unpack('>dd', entries, 1)
    local ts, count = struct.unpack('>dd', entries, ENTRY + 1)
    entries = struct.pack('>dd', ts, count + oldest) .. string.sub(entries, 2 * ENTRY + 1)
    size = size - 1
  end
  save(tailTs + window - now)
else
  save(nil)
end

return { n, reset() }
`;

/** SHA-1 of the script, for `EVALSHA`. */
export const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');
