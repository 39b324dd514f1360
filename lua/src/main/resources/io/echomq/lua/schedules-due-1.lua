--[[
  schedules-due: reads the server clock and the schedules of a queue whose next slot (or, not
  yet planned, whose anchor) has come, for the caller to plan their firing (read only).

  Invariant: changes nothing; the time it answers is the one the caller plans with, so no
  server's own clock decides what is due.

  Input:
    KEYS[1] index     echomq:{q}:schedules   zset name -> next slot (+inf while paused)
    ARGV[1] most schedules answered

  Output:
    {now, name1, name2, ...}   now in ms on the server clock; the due schedules, earliest first
]]
local rcall = redis.call

-- #include now_ms

local now = now_ms()
local out = {now}
for _, name in ipairs(rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))) do
  out[#out + 1] = name
end
return out
