--[[
  cancel: withdraws a job that no worker holds (pending, delayed, or a flow parent waiting for
  its children) so it never runs; for an active job, records a cancel request that its worker
  learns with its next heartbeat. A cancelled flow parent has its unsettled children cancelled
  (see cancel_children); a cancelled flow child leaves its parent a notice (notify_parent).

  Invariant: an active job is not moved here (its effect may be committing): it stays active,
  in the active set, with cancel_requested set (once: a second request changes nothing), and
  ends by its worker's fenced settlement: cancelled if its handler stopped without committing
  (stop-3), completed if its effect committed anyway (invariant 6). A finished job stays
  finished.

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] delayed    echomq:{q}:delayed
    KEYS[3] cancelled  echomq:{q}:cancelled   zset id -> time cancelled (for retention)
    KEYS[4] ring       echomq:{q}:lanes
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] job id

  Output:
    {'OK', previous_state}
    {'REQUESTED', 'active'}   the job is active: its cancel is requested (or already was)
    {'NOT_FOUND'}
    {'REFUSED', state}        the job is completed, dead or already cancelled
]]
local rcall = redis.call
local job, delayed, cancelled, ring = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id = ARGV[1], ARGV[2]

-- #include now_ms
-- #include remove_pending
-- #include unqueue
-- #include log_event
-- #include notify_parent
-- #include cancel_children

local fields = rcall('HMGET', job, 'state', 'lane')
local state, lane = fields[1], fields[2]
if not state then
  return {'NOT_FOUND'}
end
if state == 'active' then
  if rcall('HSETNX', job, 'cancel_requested', now_ms()) == 1 then
    log_event(prefix, id, now_ms(), 'cancel-requested', nil, nil, nil, 'the handler learns it with its next heartbeat')
  end
  return {'REQUESTED', 'active'}
end
if not unqueue(prefix, ring, delayed, job, id, state, lane) then
  return {'REFUSED', state}
end
local now = now_ms()
rcall('ZADD', cancelled, now, id)
rcall('HSET', job, 'state', 'cancelled', 'finished_at', now)
log_event(prefix, id, now, 'cancelled', nil, nil, nil, 'was ' .. state)
if state == 'waiting-children' then
  cancel_children(prefix, id)
end
notify_parent(prefix, job, id, 'cancelled')
return {'OK', state}
