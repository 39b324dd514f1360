--[[
  schedule-remove: deletes a schedule with its firing history. Jobs it already made stay in the
  queue, each in its own state.

  Invariant: touches no job; a removed schedule fires no more (every firing planned on it is
  refused, as its version is gone).

  Input:
    KEYS[1] schedule  echomq:{q}:schedule:<name>
    KEYS[2] index     echomq:{q}:schedules
    ARGV[1] name

  Output:
    {'OK'}
    {'NOT_FOUND'}
]]
local rcall = redis.call
local schedule, index, name = KEYS[1], KEYS[2], ARGV[1]
rcall('ZREM', index, name)
if rcall('DEL', schedule, schedule .. ':log') == 0 then
  return {'NOT_FOUND'}
end
return {'OK'}
