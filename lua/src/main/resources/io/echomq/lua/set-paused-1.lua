--[[
  set-paused: pauses or resumes claiming on a queue. Enqueue, settlement and reaping go on
  while paused; only claim stops handing out jobs.

  Invariant: touches no job; a paused queue loses nothing and its leases still expire.

  Input:
    KEYS[1] meta      echomq:{q}:meta
    ARGV[1] '1' = pause, '0' = resume

  Output:
    {'OK', paused}    paused is 1 or 0, the state now
]]
local rcall = redis.call
if ARGV[1] == '1' then
  rcall('HSET', KEYS[1], 'paused', '1')
  return {'OK', 1}
end
rcall('HDEL', KEYS[1], 'paused')
return {'OK', 0}
