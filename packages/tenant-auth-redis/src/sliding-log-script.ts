import { createHash } from 'node:crypto';

/**
 * The sliding log of tenant-auth-core (`slidingLogHit`, see its comment for why a coalesced log) in Lua, so
 * one `EVALSHA` reads, trims, records and sets the TTL atomically.
 *
 * The key is a string laid out so that a hit reads and writes a few bytes in place (`GETRANGE`,
 * `SETRANGE`) instead of the whole log: a new string of up to 1 KiB per hit, and closures, were what
 * cost Redis most in an earlier layout.
 *
 * - A header of 56 bytes, seven big-endian doubles: the total count of the entries; the oldest entry
 *   (timestamp, count); the newest entry (timestamp, count); `first` and `stop`, the byte offsets of the
 *   older entries.
 * - The older entries: every entry but the newest, oldest first, 16 bytes each (timestamp, count) in the
 *   bytes `first` to `stop`. The oldest entry in the header is a copy of the one at `first` (or is the
 *   newest when there is no older one); the newest lives in the header only.
 *
 * A hit reads the header. Entries that have left the window are forgotten from the oldest end by moving
 * `first` on (reading up to 8 of the older entries per `GETRANGE` to find the next oldest); a hit whose
 * slot (`windowMs / 60`) is not newer than the newest entry's merges into it (the merged entry expires
 * with its latest hit); one in a newer slot moves the newest entry to `stop` (one `SETRANGE`). The header
 * is written back with one `SETRANGE`. Bytes before `first` are dropped (the key rewritten with `SET`)
 * once there are 512 of them, so a key stays under ~1.6 KiB. At most `entryCap` entries: past it (only when
 * the window of a key grows) the oldest merges into the next. With cost 0 the script records nothing (it
 * only forgets expired entries); a negative cost gives hits back, newest first; with a limit (>= 0)
 * nothing is recorded when the count would exceed it.
 *
 * The TTL: a recording hit reads the key's (`PTTL`) and, when it would end before the newest entry
 * leaves the window on the caller's clock, sets it (`PEXPIRE`) to a quarter of a window past that, so a
 * key hit all the time sets it about four times a window, and an idle key is dropped by Redis at most a
 * quarter of a window after its last hit has left the window. Other writes keep it.
 * This layout lives under its own keys, apart from 1.0's lists (`LAYOUT` in redis-rate-limit-store.ts).
 *
 * KEYS[1] the key; ARGV: now (ms), windowMs, cost, slotMs, entryCap, limit (-1: none).
 * Returns `{ count, resetMs }`: the count the hit makes, recorded or not.
 */
// Written for Redis's Lua 5.1: no closures (a closure over many locals cost about as much as the commands),
// and offsets that do not change passed as strings (Redis formats a Lua number argument with printf).
export const SLIDING_LOG_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local limit = tonumber(ARGV[6])
local cutoff = now - window
local call, pack, unpack = redis.call, struct.pack, struct.unpack

local header = call('GETRANGE', key, '0', '55')
local stored = #header == 56
local n, hTs, hCount, tTs, tCount, first, stop = 0, 0, 0, 0, 0, 56, 56
if stored then n, hTs, hCount, tTs, tCount, first, stop = unpack('>ddddddd', header) end
local exists = stored
local changed = false
-- append: the entry to write at appendAt; ttl: a new TTL in ms, or nil to keep the key's.
local append, appendAt, ttl

-- Forget the entries that have left the window, oldest first.
if exists and hTs <= cutoff then
  changed = true
  local buf, at = '', 1
  repeat
    n = n - hCount
    if first == stop then
      exists = false
    else
      first = first + 16
      if first == stop then
        hTs, hCount = tTs, tCount
      else
        if at > #buf then
          buf = call('GETRANGE', key, first, math.min(stop, first + 128) - 1)
          at = 1
        end
        hTs, hCount = unpack('>dd', buf, at)
        at = at + 16
      end
    end
  until not exists or hTs > cutoff
end
local before = n
local refused = false

if cost < 0 then
  local back = -cost
  while back > 0 and exists do
    local take = math.min(back, tCount)
    back, n, tCount, changed = back - take, n - take, tCount - take, true
    if tCount == 0 then
      if first < stop then
        tTs, tCount = unpack('>dd', call('GETRANGE', key, stop - 16, stop - 1))
        stop = stop - 16
      else
        exists = false
      end
    end
  end
elseif limit >= 0 and before + cost > limit then
  refused = true
elseif cost > 0 then
  changed = true
  local slot = tonumber(ARGV[4])
  if exists and math.floor(now / slot) <= math.floor(tTs / slot) then
    if now > tTs then tTs = now end
    tCount = tCount + cost
  else
    if exists then
      append, appendAt = pack('>dd', tTs, tCount), stop
      stop = stop + 16
    end
    tTs, tCount, exists = now, cost, true
  end
  n = n + cost
  -- The TTL must last until the newest entry leaves the window, on this caller's clock: Redis's own
  -- count of it is read, not one written by an instance whose clock may differ.
  local need = tTs + window - now
  if not stored or call('PTTL', key) < need then ttl = need + math.floor(window / 4) end
end

if not exists then
  if stored then call('DEL', key) end
elseif changed then
  local whole
  if first == stop then
    hTs, hCount, first, stop = tTs, tCount, 56, 56
  elseif first >= 568 or (stop - first) / 16 + 1 > tonumber(ARGV[5]) then
    -- Rewritten: 512 bytes of forgotten entries, or more entries than the cap (only when the window of
    -- a key grows: the oldest merges into the next).
    whole = call('GETRANGE', key, first, (appendAt or stop) - 1) .. (append or '')
    while #whole / 16 + 1 > tonumber(ARGV[5]) do
      local _, oldest = unpack('>dd', whole, 1)
      local ts, count = unpack('>dd', whole, 17)
      whole = pack('>dd', ts, count + oldest) .. string.sub(whole, 33)
    end
    hTs, hCount = unpack('>dd', whole, 1)
    first, stop, append = 56, 56 + #whole, nil
  end
  local head = pack('>ddddddd', n, hTs, hCount, tTs, tCount, first, stop)
  if first == stop or whole then
    if whole then head = head .. whole end
    if ttl then call('SET', key, head, 'PX', ttl) else call('SET', key, head, 'KEEPTTL') end
  else
    if append then call('SETRANGE', key, appendAt, append) end
    call('SETRANGE', key, '0', head)
    if ttl then call('PEXPIRE', key, ttl) end
  end
end

local count = n
if refused then count = before + cost else before = n end
if before <= 0 or not exists then return { count, 0 } end
return { count, hTs + window - now }
`;

/** SHA-1 of the script, for `EVALSHA`. */
export const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');
