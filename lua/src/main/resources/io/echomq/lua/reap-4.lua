--[[
  reap: the recovery path. Returns jobs whose lease deadline has passed (their worker died,
  hung, or lost its connection) to pending, or dead-letters them when their attempts are
  spent. Works in bounded batches so one call never blocks the server for long. A job whose
  cancel was requested ends cancelled instead: its worker is gone, and the request must not be
  lost to a redelivery (a worker learns of a request only from a heartbeat). Should its effect
  have committed after all, the reconciler completes it (invariant 6).

  This is what makes delivery at-least-once: a held job is never lost, and may run again.

  Invariant: only jobs in the active set whose deadline (server clock) is <= now move.
  `attempts` is not touched, so the late holder's token is stale the moment the job is
  claimed again.

  Input:
    KEYS[1] active    echomq:{q}:active
    KEYS[2] dead      echomq:{q}:dead
    KEYS[3] ring      echomq:{q}:lanes
    KEYS[4] cancelled echomq:{q}:cancelled zset id -> time cancelled (for retention)
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] max jobs to reap in this call (>= 1)

  Output:
    {to_pending, to_dead, to_cancelled, id1, id2, ...}   counts, then the ids that were reaped
]]
local rcall = redis.call
local active, dead, ring, cancelled = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, limit = ARGV[1], tonumber(ARGV[2])

-- #include now_ms
-- #include push_pending
-- #include leave_active
-- #include log_event
-- #include notify_parent
-- #include cancel_active

local now = now_ms()
local expired = rcall('ZRANGEBYSCORE', active, '-inf', now, 'LIMIT', 0, limit)
local to_pending, to_dead, to_cancelled = 0, 0, 0
for _, id in ipairs(expired) do
  local job = prefix .. 'job:' .. id
  local fields = rcall('HMGET', job, 'attempts', 'max_attempts', 'lane', 'cancel_requested', 'worker')
  local attempts, max_attempts, lane, worker = tonumber(fields[1]), tonumber(fields[2]), fields[3], fields[5]
  local reason = 'lease expired during attempt ' .. attempts
  if fields[4] then
    cancel_active(prefix, active, cancelled, job, id, lane, now, attempts, worker, reason,
      'its cancel was requested and its lease expired')
    to_cancelled = to_cancelled + 1
  else
    rcall('ZREM', active, id)
    leave_active(prefix, lane, {id})
    rcall('HDEL', job, 'lease_until')
    rcall('HSET', job, 'last_error', reason)
    if attempts >= max_attempts then
      rcall('ZADD', dead, now, id)
      rcall('HSET', job, 'state', 'dead', 'finished_at', now)
      log_event(prefix, id, now, 'dead', attempts, worker, nil, 'lease expired, no attempts left')
      notify_parent(prefix, job, id, 'dead')
      to_dead = to_dead + 1
    else
      push_pending(prefix, ring, lane, id)
      log_event(prefix, id, now, 'reaped', attempts, worker, nil, 'lease expired: back to pending')
      to_pending = to_pending + 1
    end
  end
end
local out = {to_pending, to_dead, to_cancelled}
for _, id in ipairs(expired) do
  out[#out + 1] = id
end
return out
