--[[
  stop: the holder of a job whose cancel an operator requested ends it cancelled: its handler
  stopped (or failed) and its effect transaction rolled back, so nothing of the job applied.

  Invariant: fenced by the token and the job's creation time, as complete is (a stale lease
  changes nothing); only an active job with cancel_requested set moves, from the active set to
  the cancelled set. A job whose effect committed is completed by its worker instead, never
  stopped (invariant 6).

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] active     echomq:{q}:active
    KEYS[3] cancelled  echomq:{q}:cancelled   zset id -> time cancelled (for retention)
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] job id
    ARGV[3] token
    ARGV[4] the job's creation time (ms), as the claim returned it
    ARGV[5] how the attempt ended (kept as last_error)

  Output:
    {'OK', finished_at}
    {'NOT_REQUESTED'}                    no cancel was requested: nothing changed
    {'NOT_FOUND'}                        no such job, or a job of another creation time
    {'STALE_TOKEN', state, attempts}
    {'NOT_ACTIVE', state, attempts}
]]
local rcall = redis.call
local job, active, cancelled = KEYS[1], KEYS[2], KEYS[3]
local prefix, id, token, created, reason = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

-- #include now_ms
-- #include log_event
-- #include fence
-- #include leave_active
-- #include notify_parent
-- #include cancel_active

local rejected, fields = fence(prefix, id, job, token, created, 'stop', 'cancel_requested', 'worker', 'lane')
if rejected then
  return rejected
end
if not fields[4] then
  return {'NOT_REQUESTED'}
end
local now = now_ms()
cancel_active(prefix, active, cancelled, job, id, fields[6], now, token, fields[5], reason,
  'stopped by its handler on request: ' .. reason)
return {'OK', now}
