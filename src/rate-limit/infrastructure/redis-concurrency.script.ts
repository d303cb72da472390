/**
 * The concurrency cap's places in Redis: one sorted set per caller, whose
 * members are the places held (a token per request) scored by when each
 * lapses, epoch ms on the instances' clocks. The set carries the caller's hash
 * tag, so it lies in the slot of the caller's counters (docs/adr/0042).
 *
 * ACQUIRE  KEYS[1] the set; ARGV nowMs, cap, token, leaseMs.
 *          Drops the places that lapsed, then takes one when fewer than cap
 *          are held. Returns 1 when taken, 0 when refused.
 */
export const ACQUIRE_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', key, now + lease, ARGV[3])
-- Every place lapses by then, so the set goes with its last holder.
redis.call('PEXPIRE', key, lease)
return 1
`;

/**
 * RENEW  KEYS[1] the set; ARGV nowMs, leaseMs, then the tokens of the places
 *        one instance still holds. Moves each one's lapse to nowMs + leaseMs;
 *        a place already dropped is not taken again. Returns nothing.
 */
export const RENEW_SCRIPT = `
local key = KEYS[1]
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for i = 3, #ARGV do
  redis.call('ZADD', key, 'XX', until_ms, ARGV[i])
end
redis.call('PEXPIRE', key, tonumber(ARGV[2]))
`;
