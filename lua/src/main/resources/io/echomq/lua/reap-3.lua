--[[
  reap: the recovery path. Returns jobs whose lease deadline has passed (their worker died,
  hung, or lost its connection) to pending, or dead-letters them when their attempts are
  spent. Works in bounded batches so one call never blocks the server for long.

  This is what makes delivery at-least-once: a held job is never lost, and may run again.

  Invariant: only jobs in the active set whose deadline (server clock) is <= now move.
  `attempts` is not touched, so the late holder's token is stale the moment the job is
  claimed again.

  Input:
    KEYS[1] active    echomq:{q}:active
    KEYS[2] dead      echomq:{q}:dead
    KEYS[3] ring      echomq:{q}:lanes
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] max jobs to reap in this call (>= 1)

  Output:
    {to_pending, to_dead, id1, id2, ...}   counts, then the ids that were reaped
]]
local rcall = redis.call
local active, dead, ring = KEYS[1], KEYS[2], KEYS[3]
local prefix, limit = ARGV[1], tonumber(ARGV[2])

-- #include now_ms
-- #include push_pending
-- #include leave_active
-- #include log_event

local now = now_ms()
local expired = rcall('ZRANGEBYSCORE', active, '-inf', now, 'LIMIT', 0, limit)
local to_pending, to_dead = 0, 0
for _, id in ipairs(expired) do
  local job = prefix .. 'job:' .. id
  local fields = rcall('HMGET', job, 'attempts', 'max_attempts', 'lane')
  local attempts, max_attempts = tonumber(fields[1]), tonumber(fields[2])
  rcall('ZREM', active, id)
  leave_active(prefix, fields[3], {id})
  rcall('HDEL', job, 'lease_until')
  rcall('HSET', job, 'last_error', 'lease expired during attempt ' .. attempts)
  local worker = rcall('HGET', job, 'worker')
  if attempts >= max_attempts then
    rcall('ZADD', dead, now, id)
    rcall('HSET', job, 'state', 'dead', 'finished_at', now)
    log_event(prefix, id, now, 'dead', attempts, worker, nil, 'lease expired, no attempts left')
    to_dead = to_dead + 1
  else
    push_pending(prefix, ring, fields[3], id)
    log_event(prefix, id, now, 'reaped', attempts, worker, nil, 'lease expired: back to pending')
    to_pending = to_pending + 1
  end
end
local out = {to_pending, to_dead}
for _, id in ipairs(expired) do
  out[#out + 1] = id
end
return out
