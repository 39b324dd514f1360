--[[
  stats: counts jobs per state. Read-only.

  Invariant: changes nothing. Pending is the sum over the lanes in the ring and the lanes held
  by a limit (echomq:{q}:held, see includes/limits), which together hold every lane with
  pending work, so the counts add up to every job the queue holds.

  Input:
    KEYS[1] ring       echomq:{q}:lanes
    KEYS[2] delayed    echomq:{q}:delayed
    KEYS[3] active     echomq:{q}:active
    KEYS[4] completed  echomq:{q}:completed
    KEYS[5] dead       echomq:{q}:dead
    KEYS[6] cancelled  echomq:{q}:cancelled
    KEYS[7] meta       echomq:{q}:meta
    ARGV[1] prefix     echomq:{q}:

  Output:
    {pending, delayed, active, completed, dead, cancelled, paused (0|1), lanes with work,
     lanes held, waiting-children}   lanes held: lanes with pending jobs that wait for their
     lane's limit; waiting-children: flow parents waiting for their children (echomq:{q}:waiting,
     derived from the prefix)
]]
local rcall = redis.call
local prefix = ARGV[1]
local pending = 0
local lanes = rcall('LRANGE', KEYS[1], 0, -1)
for _, lane in ipairs(lanes) do
  pending = pending + rcall('ZCARD', prefix .. 'pending:' .. lane)
end
local held = 0
for _, lane in ipairs(rcall('ZRANGE', prefix .. 'held', 0, -1)) do
  local waiting = rcall('ZCARD', prefix .. 'pending:' .. lane)
  if waiting > 0 then
    pending = pending + waiting
    held = held + 1
  end
end
local paused = 0
if rcall('HGET', KEYS[7], 'paused') == '1' then
  paused = 1
end
return {pending, rcall('ZCARD', KEYS[2]), rcall('ZCARD', KEYS[3]), rcall('ZCARD', KEYS[4]),
  rcall('ZCARD', KEYS[5]), rcall('ZCARD', KEYS[6]), paused, #lanes + held, held, rcall('ZCARD', prefix .. 'waiting')}
