--[[
  requeue: gives a dead job a fresh run: back to pending with a new budget of attempts.

  Invariant: `attempts` never goes back (tokens of earlier leases stay stale); the ceiling
  is raised instead: max_attempts = attempts + the job's original budget. A cancel request
  left from an earlier run is dropped: the operator asks for this run.

  Input:
    KEYS[1] job       echomq:{q}:job:<id>
    KEYS[2] dead      echomq:{q}:dead
    KEYS[3] ring      echomq:{q}:lanes
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] job id

  Output:
    {'OK', previous_state}
    {'NOT_FOUND'}
    {'REFUSED', state}        only a dead job can be requeued
]]
local rcall = redis.call
local job, dead, ring = KEYS[1], KEYS[2], KEYS[3]
local prefix, id = ARGV[1], ARGV[2]

-- #include now_ms
-- #include push_pending
-- #include log_event

local fields = rcall('HMGET', job, 'state', 'lane', 'attempts', 'retry_budget')
local state, lane = fields[1], fields[2]
if not state then
  return {'NOT_FOUND'}
end
if state ~= 'dead' then
  return {'REFUSED', state}
end
rcall('ZREM', dead, id)
rcall('HSET', job, 'max_attempts', tonumber(fields[3]) + tonumber(fields[4]))
rcall('HDEL', job, 'finished_at', 'cancel_requested')
push_pending(prefix, ring, lane, id)
log_event(prefix, id, now_ms(), 'requeued', nil, nil, nil, 'fresh budget: up to attempt ' .. (tonumber(fields[3]) + tonumber(fields[4])))
return {'OK', state}
