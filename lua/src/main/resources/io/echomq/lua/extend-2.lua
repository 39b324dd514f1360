--[[
  extend: the heartbeat. Pushes the lease deadline of a job the caller still holds to
  now + lease_ms (server clock).

  Invariant: fenced by the token. A stale token (the job was leased again since), an unknown
  job, or a job that is no longer active changes nothing and says so.

  Input:
    KEYS[1] job       echomq:{q}:job:<id>
    KEYS[2] active    echomq:{q}:active
    ARGV[1] job id
    ARGV[2] token     the attempts value minted by the claim
    ARGV[3] lease length in ms (> 0)

  Output:
    {'OK', deadline}                     the new lease deadline (ms, server clock)
    {'NOT_FOUND'}
    {'STALE_TOKEN', state, attempts}     someone holds a newer lease
    {'NOT_ACTIVE', state, attempts}      the lease was settled or reaped
]]
local rcall = redis.call
local job, active = KEYS[1], KEYS[2]
local id, token, lease_ms = ARGV[1], ARGV[2], tonumber(ARGV[3])

-- #include now_ms
-- #include fence

local rejected = fence(job, token)
if rejected then
  return rejected
end
local deadline = now_ms() + lease_ms
rcall('ZADD', active, 'XX', deadline, id)
rcall('HSET', job, 'lease_until', deadline)
return {'OK', deadline}
