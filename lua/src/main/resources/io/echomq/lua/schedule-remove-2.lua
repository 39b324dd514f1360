--[[
  schedule-remove: deletes a schedule with its firing history. Jobs it already made stay in the
  queue, each in its own state. A schedule that configuration declared leaves only the
  fingerprint configuration last applied ('config_fingerprint', see schedule-put): a server
  restarting with that configuration does not bring it back; a changed configuration does.

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
local f = rcall('HMGET', schedule, 'version', 'config_fingerprint')
rcall('ZREM', index, name)
rcall('DEL', schedule, schedule .. ':log')
if f[2] then
  rcall('HSET', schedule, 'config_fingerprint', f[2])
end
if not f[1] then
  return {'NOT_FOUND'}
end
return {'OK'}
