--[[
  extend: the heartbeat. Pushes the lease deadline of a job the caller still holds to
  now + lease_ms (server clock), and records the progress its handler reported since the last
  heartbeat, if any (only the latest report is sent: progress is a value, not a log).

  Invariant: fenced by the token and the job's creation time. A stale token (the job was
  leased again since), an unknown job, a job of another creation time (the id was handed out
  again after a failover lost the lease's job), or a job that is no longer active changes
  nothing (but the job's history) and says so: a stale worker's progress is not recorded.
  Progress is kept with the attempt that reported it (progress_attempt), so a retry shows the
  last attempt's report until the new attempt reports its own.

  Input:
    KEYS[1] job       echomq:{q}:job:<id>
    KEYS[2] active    echomq:{q}:active
    ARGV[1] prefix    echomq:{q}:          for the job's history and the queue's event stream
    ARGV[2] job id
    ARGV[3] token     the attempts value minted by the claim
    ARGV[4] the job's creation time (ms), as the claim returned it
    ARGV[5] lease length in ms (> 0)
    ARGV[6] progress: a whole percent 0..100 ('' = no progress to record)
    ARGV[7] progress message (short text, bounded by the caller; '' for none)

  Output:
    {'OK', deadline, cancel}             the new lease deadline (ms, server clock); cancel is 1
                                         when an operator asked to cancel the job, else 0
    {'NOT_FOUND'}                        no such job, or a job of another creation time
    {'STALE_TOKEN', state, attempts}     someone holds a newer lease
    {'NOT_ACTIVE', state, attempts}      the lease was settled or reaped
]]
local rcall = redis.call
local job, active = KEYS[1], KEYS[2]
local prefix, id, token, created, lease_ms = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local percent, message = ARGV[6], ARGV[7]

-- #include now_ms
-- #include log_event
-- #include fence

local rejected = fence(prefix, id, job, token, created, 'extend')
if rejected then
  return rejected
end
local now = now_ms()
local deadline = now + lease_ms
rcall('ZADD', active, 'XX', deadline, id)
rcall('HSET', job, 'lease_until', deadline)
if percent ~= nil and percent ~= '' then
  rcall('HSET', job, 'progress', percent, 'progress_message', message or '', 'progress_at', now, 'progress_attempt', token)
  -- The history folds heartbeats; the stream carries each report (a heartbeat without one is no news).
  stream_event(prefix, id, now, 'progress', token, percent .. '%' .. ((message or '') ~= '' and (' ' .. message) or ''))
end
local held = rcall('HMGET', job, 'worker', 'cancel_requested')
log_event(prefix, id, now, 'extended', token, held[1], deadline, '1 heartbeat')
return {'OK', deadline, held[2] and 1 or 0}
