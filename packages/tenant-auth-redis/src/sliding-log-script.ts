import { createHash } from 'node:crypto';

/**
 * The sliding log of tenant-auth-core (`slidingLogHit`, see its comment for why a coalesced log) in Lua, so
 * one `EVALSHA` reads, trims, records and sets the TTL atomically, with two commands whatever the log holds.
 *
 * The key is a string: the total count of its entries (a big-endian double), then the entries, oldest first,
 * 16 bytes each (timestamp and count, two big-endian doubles), one per slot of `windowMs / 60`, at most
 * `ENTRY_CAP`. A hit is one `GET` and one `SET` (or `DEL`, or nothing): it unpacks the entries that have
 * just left the window (usually none) and the newest, never the rest, and keeps a running total instead of
 * summing. It reads the entries where the `GET` left them and makes two new strings of them only when it
 * writes (one `string.sub`, one concatenation): a new string of up to 1 KiB (a minute's window) costs Redis
 * more than anything else the script does. A hit whose slot is not newer than the newest entry's merges into
 * it; the merged entry expires with its latest hit. A recording hit sets the TTL (`PX`) to when the newest
 * entry leaves the window, so Redis drops an idle key by itself; other writes keep it (`KEEPTTL`). With cost
 * 0 the script records nothing (it only forgets expired entries); a negative cost gives hits back, newest
 * first; with a limit (>= 0) nothing is recorded when the count would exceed it.
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
local pack, unpack, sub, floor, min = struct.pack, struct.unpack, string.sub, math.floor, math.min

local stored = redis.call('GET', key)
local raw = stored or ''
local n = 0
local size = 0
if stored then
  n = unpack('>d', raw)
  size = (#raw - 8) / ENTRY
end
-- The live entries: the bytes first..last of raw, then tail (the newest entry when a hit rewrote or added
-- it, else ''). Nothing is copied until the key is written.
local first = 9
local last = 8 + size * ENTRY
local tail = ''

-- Forget the entries that have left the window, oldest first.
while first < last do
  local ts, count = unpack('>dd', raw, first)
  if ts > cutoff then break end
  n = n - count
  first = first + ENTRY
  size = size - 1
end
local changed = first > 9
local before = n

-- ttl: a new TTL in ms, or nil to keep the key's.
local function save(ttl)
  if size == 0 then
    if stored then redis.call('DEL', key) end
  elseif ttl then
    redis.call('SET', key, pack('>d', n) .. sub(raw, first, last) .. tail, 'PX', ttl)
  elseif changed then
    redis.call('SET', key, pack('>d', n) .. sub(raw, first, last) .. tail, 'KEEPTTL')
  end
end
local function reset()
  if n <= 0 or size == 0 then return 0 end
  if first < last then return unpack('>d', raw, first) + window - now end
  return unpack('>d', tail) + window - now
end

if cost < 0 then
  local back = -cost
  -- tail stays '' until the last step: the newest entry is always the last one of raw.
  while back > 0 and size > 0 do
    local ts, count = unpack('>dd', raw, last - ENTRY + 1)
    local take = min(back, count)
    back = back - take
    n = n - take
    changed = true
    last = last - ENTRY
    if take < count then
      tail = pack('>dd', ts, count - take)
    else
      size = size - 1
    end
  end
  save(nil)
elseif limit >= 0 and before + cost > limit then
  save(nil)
  return { before + cost, reset() }
elseif cost > 0 then
  local tailTs = now
  if size > 0 then
    local ts, count = unpack('>dd', raw, last - ENTRY + 1)
    if floor(now / slot) <= floor(ts / slot) then
      if now > ts then ts = now end
      tailTs = ts
      tail = pack('>dd', ts, count + cost)
      last = last - ENTRY
    end
  end
  if tail == '' then
    tail = pack('>dd', now, cost)
    size = size + 1
  end
  n = n + cost
  if size > cap then
    -- Only when the window of a key grows: merge the oldest entry into the next.
    local entries = sub(raw, first, last) .. tail
    while size > cap do
      local _, oldest = unpack('>dd', entries, 1)
      local ts, count = unpack('>dd', entries, ENTRY + 1)
      entries = pack('>dd', ts, count + oldest) .. sub(entries, 2 * ENTRY + 1)
      size = size - 1
    end
    raw, first, last, tail = entries, 1, #entries, ''
  end
  save(tailTs + window - now)
else
  save(nil)
end

return { n, reset() }
`;

/** SHA-1 of the script, for `EVALSHA`. */
export const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');
