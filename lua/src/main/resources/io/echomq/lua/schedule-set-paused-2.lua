--[[
  schedule-set-paused: pauses or resumes one schedule. A paused schedule fires nothing; its
  slots that come due while it is paused are skipped when it resumes (counted, not fired,
  whatever the misfire policy), because the resume time is recorded on the server clock.

  Invariant: touches no job and no definition; pausing twice or resuming twice changes nothing
  more than once (safe to resend).

  Input:
    KEYS[1] schedule  echomq:{q}:schedule:<name>
    KEYS[2] index     echomq:{q}:schedules
    ARGV[1] name
    ARGV[2] '1' = pause, '0' = resume

  Output:
    {'OK', paused}    paused is 1 or 0, the state now
    {'NOT_FOUND'}
]]
local rcall = redis.call
local schedule, index, name = KEYS[1], KEYS[2], ARGV[1]

-- #include now_ms
-- #include integer_text

local fields = rcall('HMGET', schedule, 'version', 'paused', 'next_slot', 'anchor')
if not fields[1] then
  return {'NOT_FOUND'}
end
if ARGV[2] == '1' then
  if fields[2] ~= '1' then
    rcall('HSET', schedule, 'paused', '1')
    rcall('ZADD', index, '+inf', name)
  end
  return {'OK', 1}
end
if fields[2] == '1' then
  rcall('HDEL', schedule, 'paused')
  rcall('HSET', schedule, 'resumed_at', integer_text(now_ms()))
  rcall('ZADD', index, fields[3] or fields[4], name)
end
return {'OK', 0}
