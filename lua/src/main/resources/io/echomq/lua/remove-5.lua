--[[
  remove: deletes one finished job (completed, dead or cancelled) and its history at once,
  the operator's way to clear the dead-letter set without waiting for retention.
  The stream gets a 'removed' event (the job's history goes with the job).

  Invariant: only finished jobs are ever deleted (no worker holds them and none ever will);
  the job's idempotency keys are released with it.

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] completed  echomq:{q}:completed
    KEYS[3] dead       echomq:{q}:dead
    KEYS[4] cancelled  echomq:{q}:cancelled
    KEYS[5] idem       echomq:{q}:idem
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] job id

  Output:
    {'OK', previous_state}
    {'NOT_FOUND'}
    {'REFUSED', state}        pending, delayed or active: not finished
]]
local rcall = redis.call
local job, completed, dead, cancelled, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, id = ARGV[1], ARGV[2]

-- #include now_ms
-- #include log_event
-- #include release_idempotency_keys

local state = rcall('HGET', job, 'state')
if not state then
  return {'NOT_FOUND'}
end
local finished = {completed = completed, dead = dead, cancelled = cancelled}
if not finished[state] then
  return {'REFUSED', state}
end
stream_event(prefix, id, now_ms(), 'removed', nil, 'was ' .. state)
rcall('ZREM', finished[state], id)
release_idempotency_keys(idem, job, id)
rcall('DEL', job, prefix .. 'job:' .. id .. ':log', prefix .. 'job:' .. id .. ':flow')
return {'OK', state}
