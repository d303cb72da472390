/**
 * `consumeRequest` and `peekRequest` (domain/rate-limit-windows.ts) in Lua,
 * run atomically by Redis on one hash per key, so concurrent requests from any
 * number of instances never count past a limit. Keep the two in step: the
 * contract specs run the same cases against both. The two scripts share how
 * they read the state and judge the request; only CONSUME_SCRIPT writes.
 *
 * KEYS[1]  the key's hash: banned_until, refused_since and, per window, <name>:count,
 *          <name>:rejected, <name>:reset (epoch ms)
 * KEYS[2]  optional, `consumeSharedRequest` (`peekSharedRequest`): the ban subject's hash, with the
 *          same fields; then KEYS[1] keeps the counts and KEYS[2] the
 *          rejections and the ban (both keys must lie in one cluster slot)
 * ARGV     nowMs, banAfterRejections, banMs, burstGraceMs, then name, limit, durationMs, use
 *          for each window (use: 2 counted, 1 only judged against, 0 only reported)
 * Returns  { allowed (0/1), banned (0/1), retryAfterSeconds, binding window's
 *            position (1-based), then remaining, resetAtMs for each window }
 */
const READ_AND_JUDGE = `
local key = KEYS[1]
local ban_key = KEYS[2]
local now = tonumber(ARGV[1])
local ban_after = tonumber(ARGV[2])
local ban_ms = tonumber(ARGV[3])
local burst_grace_ms = tonumber(ARGV[4])

local fields = { 'banned_until', 'refused_since' }
for i = 5, #ARGV, 4 do
  local name = ARGV[i]
  fields[#fields + 1] = name .. ':count'
  fields[#fields + 1] = name .. ':rejected'
  fields[#fields + 1] = name .. ':reset'
end
local stored = redis.call('HMGET', key, unpack(fields))
local ban_stored = stored
if ban_key then ban_stored = redis.call('HMGET', ban_key, unpack(fields)) end

local windows = {}
for i = 5, #ARGV, 4 do
  local at = #windows * 3 + 3
  local w = { name = ARGV[i], limit = tonumber(ARGV[i + 1]), count = 0, rejected = 0,
              reset = now + tonumber(ARGV[i + 2]), use = tonumber(ARGV[i + 3]) }
  local reset = tonumber(stored[at + 2])
  if reset and now < reset then
    w.count = tonumber(stored[at]) or 0
    -- A ban subject's rejections count only in the very window they were made in.
    if not ban_key or tonumber(ban_stored[at + 2]) == reset then
      w.rejected = tonumber(ban_stored[at + 1]) or 0
    end
    w.reset = reset
  end
  windows[#windows + 1] = w
end

local function remaining(w)
  return math.max(0, w.limit - w.count)
end

-- Fewest remaining; on a tie, the window that resets later.
local function binding()
  local best = 1
  for i = 2, #windows do
    local w, b = windows[i], windows[best]
    if remaining(w) < remaining(b) or (remaining(w) == remaining(b) and w.reset > b.reset) then
      best = i
    end
  end
  return best
end

-- Full, and a window the request is counted in or judged against.
local function is_full(w)
  return w.use > 0 and w.count >= w.limit
end

local function seconds_until(until_ms)
  return math.max(1, math.ceil((until_ms - now) / 1000))
end

local function reply(allowed, retry_after)
  local out = { allowed, 0, retry_after, binding() }
  for _, w in ipairs(windows) do
    out[#out + 1] = remaining(w)
    out[#out + 1] = w.reset
  end
  return out
end

-- While banned every window reads as empty until the ban ends.
local function banned_reply(ban_end)
  local out = { 0, 1, seconds_until(ban_end), binding() }
  for _ = 1, #windows do
    out[#out + 1] = 0
    out[#out + 1] = ban_end
  end
  return out
end

local banned_until = tonumber(ban_stored[1]) or 0
if banned_until > now then
  return banned_reply(banned_until)
end

-- When every full window has ended; 0 when no window is full.
local accepted_again_at = 0
for _, w in ipairs(windows) do
  if is_full(w) then accepted_again_at = math.max(accepted_again_at, w.reset) end
end
`;

export const CONSUME_SCRIPT = `${READ_AND_JUDGE}
local function save_hash(hash, banned_until, refused_since, counts, rejections)
  local values = { 'banned_until', banned_until, 'refused_since', refused_since }
  local forget_at = banned_until
  for _, w in ipairs(windows) do
    values[#values + 1] = w.name .. ':count'
    values[#values + 1] = counts and w.count or 0
    values[#values + 1] = w.name .. ':rejected'
    values[#values + 1] = rejections and w.rejected or 0
    values[#values + 1] = w.name .. ':reset'
    values[#values + 1] = w.reset
    forget_at = math.max(forget_at, w.reset)
  end
  redis.call('HSET', hash, unpack(values))
  -- The hash may hold longer windows than this request's (a route's own bucket beside the day): never shorten its life.
  local ttl = math.max(1, forget_at - now)
  if redis.call('PTTL', hash) < ttl then redis.call('PEXPIRE', hash, ttl) end
end
-- With a ban subject, the shared hash keeps the counts and the subject's hash the rejections, the ban and the episode.
local function save(banned_until, refused_since)
  if ban_key then
    save_hash(key, 0, 0, true, false)
    save_hash(ban_key, banned_until, refused_since, false, true)
  else
    save_hash(key, banned_until, refused_since, true, true)
  end
end

if accepted_again_at == 0 then
  for _, w in ipairs(windows) do
    if w.use == 2 then w.count = w.count + 1 end
  end
  save(0, 0)
  return reply(1, 0)
end

-- Refusals within the grace of the episode's first refusal are a burst: answered, tallied nowhere.
local refused_since = tonumber(ban_stored[2]) or 0
if refused_since == 0 then refused_since = now end
local tallied = now >= refused_since + burst_grace_ms
local ban = false
for _, w in ipairs(windows) do
  if is_full(w) then
    if tallied then w.rejected = w.rejected + 1 end
    if w.rejected > ban_after then ban = true end
  end
end

if ban then
  local ban_end = now + ban_ms
  for _, w in ipairs(windows) do w.rejected = 0 end
  save(ban_end, 0)
  return banned_reply(ban_end)
end

save(0, refused_since)
return reply(0, seconds_until(accepted_again_at))
`;

/** Answers as CONSUME_SCRIPT would, and writes nothing. */
export const PEEK_SCRIPT = `${READ_AND_JUDGE}
if accepted_again_at == 0 then
  return reply(1, 0)
end
return reply(0, seconds_until(accepted_again_at))
`;

/**
 * `refundRequest` in Lua. KEYS[1] the hash holding the counts; ARGV nowMs,
 * then name and the counted request's resetAtMs for each window it was
 * counted in. One less in each such window that has not ended since.
 */
export const REFUND_SCRIPT = `
local now = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  local name = ARGV[i]
  local stored = redis.call('HMGET', KEYS[1], name .. ':count', name .. ':reset')
  local count, reset = tonumber(stored[1]) or 0, tonumber(stored[2])
  if reset and reset == tonumber(ARGV[i + 1]) and now < reset and count > 0 then
    redis.call('HSET', KEYS[1], name .. ':count', count - 1)
  end
end
`;
