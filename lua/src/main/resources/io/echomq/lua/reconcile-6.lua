--[[
  reconcile: completes a job whose effect is known to have committed (the effect store holds
  its row) but which sits pending, delayed, dead or cancelled: its worker died between the
  effect's commit and the acknowledgement, and the job was reaped, retried or cancelled since.

  Invariant: a job whose effect committed ends completed (docs/ARCHITECTURE.md, invariant 6). An active
  job is left to its holder (its next step skips the effect and completes it), and a
  completed job stays as it is. The caller must have seen the effect row first.

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] delayed    echomq:{q}:delayed
    KEYS[3] dead       echomq:{q}:dead
    KEYS[4] cancelled  echomq:{q}:cancelled
    KEYS[5] completed  echomq:{q}:completed
    KEYS[6] ring       echomq:{q}:lanes
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] job id
    ARGV[3] reason, kept on the job as its note
    ARGV[4] the creation time (ms) the effect row names, or 0 for a row recorded before
            effect keys named it: a job with this id but another creation time is a different
            job (the id was reused after a failover) and is left alone

  Output:
    {'OK', previous_state}
    {'NOT_FOUND'}             no job with this id and creation time
    {'REFUSED', state}        active or already completed
]]
local rcall = redis.call
local job, delayed, dead, cancelled, completed, ring = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix, id, reason, created = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

-- #include now_ms
-- #include remove_pending
-- #include unqueue
-- #include log_event
-- #include notify_parent

local fields = rcall('HMGET', job, 'state', 'lane', 'created_at')
local state, lane = fields[1], fields[2]
if not state or (created ~= '0' and fields[3] ~= created) then
  return {'NOT_FOUND'}
end
local ended = {dead = dead, cancelled = cancelled}
if state == 'waiting-children' then
  -- A flow parent that never ran has no effect of its own: only its children release it.
  return {'REFUSED', state}
elseif ended[state] then
  rcall('ZREM', ended[state], id)
elseif not unqueue(prefix, ring, delayed, job, id, state, lane) then
  return {'REFUSED', state}
end
local now = now_ms()
rcall('ZADD', completed, now, id)
rcall('HSET', job, 'state', 'completed', 'finished_at', now, 'note', reason)
log_event(prefix, id, now, 'reconciled', nil, nil, nil, reason)
notify_parent(prefix, job, id, 'completed')
return {'OK', state}
