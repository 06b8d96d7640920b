import { createHash } from 'node:crypto';

/**
 * The sliding log of tenant-auth-core (`slidingLogHit`, see its comment for why a coalesced log) in Lua, so
 * one `EVALSHA` reads, trims, records and sets the TTL atomically.
 *
 * The key is a list of `"<timestamp>:<count>"` entries, oldest first, one per slot of `windowMs / 60`
 * (at most `ENTRY_CAP`). A hit whose slot is not newer than the newest entry's merges into it; the merged
 * entry expires with its latest hit. `PEXPIRE` is set to when the newest entry leaves the window, so Redis
 * drops an idle key by itself. With cost 0 the script writes nothing; a negative cost gives hits back,
 * newest first; with a limit (>= 0) nothing is written when the count would exceed it.
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

local raw = redis.call('LRANGE', key, 0, -1)
local ts, counts, drop = {}, {}, 0
for i = 1, #raw do
  local sep = string.find(raw[i], ':', 1, true)
  local t = tonumber(string.sub(raw[i], 1, sep - 1))
  if #ts == 0 and t <= cutoff then
    drop = drop + 1
  else
    ts[#ts + 1] = t
    counts[#counts + 1] = tonumber(string.sub(raw[i], sep + 1))
  end
end

local before = 0
for i = 1, #counts do before = before + counts[i] end

if cost < 0 then
  if drop > 0 then redis.call('LTRIM', key, drop, -1) end
  local back = -cost
  local n = #ts
  while back > 0 and n > 0 do
    local take = math.min(back, counts[n])
    counts[n] = counts[n] - take
    back = back - take
    if counts[n] == 0 then
      redis.call('RPOP', key)
      table.remove(ts, n)
      table.remove(counts, n)
      n = n - 1
    else
      redis.call('LSET', key, -1, string.format('%d:%d', ts[n], counts[n]))
    end
  end
  if n == 0 then redis.call('DEL', key) end
elseif limit >= 0 and before + cost > limit then
  local reset = 0
  if before > 0 then reset = ts[1] + window - now end
  return { before + cost, reset }
elseif cost > 0 then
  if drop > 0 then redis.call('LTRIM', key, drop, -1) end
  local n = #ts
  if n > 0 and math.floor(now / slot) <= math.floor(ts[n] / slot) then
    if now > ts[n] then ts[n] = now end
    counts[n] = counts[n] + cost
    redis.call('LSET', key, -1, string.format('%d:%d', ts[n], counts[n]))
  else
    n = n + 1
    ts[n] = now
    counts[n] = cost
    redis.call('RPUSH', key, string.format('%d:%d', now, cost))
  end
  while n > cap do
    counts[2] = counts[2] + counts[1]
    table.remove(ts, 1)
    table.remove(counts, 1)
    n = n - 1
    redis.call('LPOP', key)
    redis.call('LSET', key, 0, string.format('%d:%d', ts[1], counts[1]))
  end
  redis.call('PEXPIRE', key, ts[n] + window - now)
end

local count = 0
for i = 1, #counts do count = count + counts[i] end
local reset = 0
if count > 0 then reset = ts[1] + window - now end
return { count, reset }
`;

/** SHA-1 of the script, for `EVALSHA`. */
export const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');
