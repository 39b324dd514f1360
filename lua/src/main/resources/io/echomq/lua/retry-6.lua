--[[
  retry: a failed attempt. Records the error and schedules the next attempt after a backoff
  computed on the server clock, or dead-letters the job when its attempts are spent (or the
  failure is permanent). A job whose cancel was requested ends cancelled instead: its attempt
  failed without committing, and the request must not be lost to a retry that the heartbeat
  never had the chance to report (a worker learns of a request only from a heartbeat).

  A contended attempt (its effect key was held by another transaction, most likely an earlier
  attempt's zombie, so it wrote nothing and never ran the handler) does not spend the job's
  attempts: max_attempts is raised by one, as requeue raises it, at most retry_budget times in
  the job's life (contended_refunds counts them), so a key held for ever still ends in dead.

  Backoff: min(max_ms, base_ms * 2^(attempts - 1)); 0 puts the job straight back to pending.

  Invariant: fenced by the token and the job's creation time (a stale or unknown token, or a
  lease of another job that had this id before a failover, changes nothing and says so).
  `attempts` is not touched: the next claim mints the next token.

  Input:
    KEYS[1] job       echomq:{q}:job:<id>
    KEYS[2] active    echomq:{q}:active
    KEYS[3] delayed   echomq:{q}:delayed
    KEYS[4] dead      echomq:{q}:dead      zset id -> time of death (for retention)
    KEYS[5] ring      echomq:{q}:lanes
    KEYS[6] cancelled echomq:{q}:cancelled zset id -> time cancelled (for retention)
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] job id
    ARGV[3] token
    ARGV[4] the job's creation time (ms), as the claim returned it
    ARGV[5] error message (kept as last_error)
    ARGV[6] backoff base in ms (>= 0)
    ARGV[7] backoff cap in ms (>= 0)
    ARGV[8] kind: 'retryable' (counts as an attempt), 'permanent' (dead-letter now) or
            'contended' (not counted, within the refund limit above)

  Output:
    {'RETRY', state, due_at}            state 'delayed' (due_at in ms) or 'pending'
    {'DEAD', attempts}
    {'CANCELLED', finished_at}          its cancel was requested: the attempt ended it
    {'NOT_FOUND'}                       no such job, or a job of another creation time
    {'STALE_TOKEN', state, attempts}
    {'NOT_ACTIVE', state, attempts}
]]
local rcall = redis.call
local job, active, delayed, dead, ring, cancelled = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix, id, token, created, err = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local base_ms, cap_ms, kind = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]

-- #include now_ms
-- #include push_pending
-- #include log_event
-- #include fence
-- #include leave_active
-- #include notify_parent
-- #include cancel_active

local rejected, fenced = fence(prefix, id, job, token, created, 'retry', 'lane', 'cancel_requested')
if rejected then
  return rejected
end
local now = now_ms()
local attempts = tonumber(token)
if fenced[5] then
  cancel_active(prefix, active, cancelled, job, id, fenced[4], now, token, rcall('HGET', job, 'worker'), err,
    'its cancel was requested and its attempt failed: ' .. err)
  return {'CANCELLED', now}
end
local fields = rcall('HMGET', job, 'max_attempts', 'retry_budget', 'contended_refunds')
local max_attempts = tonumber(fields[1])
if kind == 'contended' then
  local budget, refunds = tonumber(fields[2] or fields[1]), tonumber(fields[3] or '0')
  if refunds < budget then
    max_attempts = max_attempts + 1
    rcall('HSET', job, 'max_attempts', max_attempts, 'contended_refunds', refunds + 1)
    err = err .. ' (not counted as an attempt)'
  end
end
rcall('ZREM', active, id)
leave_active(prefix, fenced[4], {id})
rcall('HSET', job, 'last_error', err)
rcall('HDEL', job, 'lease_until')

local worker = rcall('HGET', job, 'worker')
if kind == 'permanent' or attempts >= max_attempts then
  rcall('ZADD', dead, now, id)
  rcall('HSET', job, 'state', 'dead', 'finished_at', now)
  log_event(prefix, id, now, 'dead', token, worker, nil, err)
  notify_parent(prefix, job, id, 'dead')
  return {'DEAD', attempts}
end

local delay = math.min(cap_ms, base_ms * (2 ^ (attempts - 1)))
if delay <= 0 then
  push_pending(prefix, ring, fenced[4], id)
  log_event(prefix, id, now, 'retried', token, worker, nil, err)
  return {'RETRY', 'pending', now}
end
local due = now + math.floor(delay)
rcall('ZADD', delayed, due, id)
rcall('HSET', job, 'state', 'delayed', 'due_at', due)
log_event(prefix, id, now, 'retried', token, worker, nil, err .. ' (next attempt at ' .. due .. ')')
return {'RETRY', 'delayed', due}
