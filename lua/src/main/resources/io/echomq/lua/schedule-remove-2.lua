--[[
  schedule-remove: deletes a schedule with its firing history. Jobs it already made stay in the
  queue, each in its own state. A schedule that configuration declared leaves only the
  fingerprint configuration last applied ('config_fingerprint', see schedule-put): a server
  restarting with that configuration does not bring it back; a changed configuration does.

  A move to another shard (docs/SHARDING.md 3.3, its S2) removes it the same way and keeps in the
  fence's hash what carries over to the new shard (the paused flag as 'moved_paused', beside the
  'config_fingerprint' any remove keeps) and whether there was a schedule ('moved_removed'), so
  that S3 can be finished by anyone, even after a stop between the two: the same step sent again
  with the same token finds the schedule gone and answers what the first one kept. What it keeps
  has no time to live, however long a stop lasts, until the move's S4 ('moved', once the new
  shard holds the schedule) gives it the hour a removed schedule's fence lives: a mover still
  sending its steps then gets the same answers as whoever finished its move.

  Invariant: touches no job; a removed schedule fires no more (every firing planned on it is
  refused, as its version is gone).

  Input:
    KEYS[1] schedule  echomq:{q}:schedule:<name>
    KEYS[2] index     echomq:{q}:schedules
    ARGV[1] name
    ARGV[2] token     on a sharded queue, the token the directory handed this remove (schedule-home); '' or absent
                      on a queue of one shard. Compared and kept as schedule-put does: the hash keeps the name's
                      'fence' after the remove, so a put overtaken by this remove is refused when it lands
    ARGV[3] mode      'move' for a move's S2 (with its token); 'moved' for its S4 (with its token): what S2
                      kept lives an hour from now; '' or absent for a remove

  Output:
    {'OK'}
    {'NOT_FOUND'}
    {'SUPERSEDED'}    a later put or remove of the name was applied here first; nothing changed
    {'MOVED', removed, paused, config_fingerprint}   mode 'move': removed 1 when a schedule was here when
                      this move's S2 first ran (0 when it was not), paused '1' or '0' and the fingerprint configuration
                      last applied ('' for none): what the schedule carries to its new shard
    {'RELEASED'}      mode 'moved': what S2 kept expires within the hour (or a later change owns the name here)
]]
-- How long a removed schedule's fence outlives it: far beyond any put still in flight (a client
-- gives up on a reply within seconds), and short enough that names used once do not pile up.
local FENCE_KEPT_MS = 3600000

local rcall = redis.call
local schedule, index, name = KEYS[1], KEYS[2], ARGV[1]
local token = tonumber(ARGV[2] or '')
local moving = token and ARGV[3] == 'move'
local f = rcall('HMGET', schedule, 'version', 'config_fingerprint', 'fence', 'paused', 'moved_paused', 'moved_removed')
-- What a removed schedule leaves lives an hour, unless it keeps the fingerprint configuration last applied.
local function let_expire()
  if not f[2] then
    rcall('PEXPIRE', schedule, FENCE_KEPT_MS)
  end
end
if token and ARGV[3] == 'moved' then
  if not f[1] and tonumber(f[3] or '0') == token then
    let_expire()
  end
  return {'RELEASED'}
end
if token and tonumber(f[3] or '0') > token then
  return {'SUPERSEDED'}
end
if moving and not f[1] and tonumber(f[3] or '0') == token then
  -- This move's S2 sent again: answer what the first one kept.
  return {'MOVED', tonumber(f[6] or '0'), f[5] or '0', f[2] or ''}
end
rcall('ZREM', index, name)
rcall('DEL', schedule, schedule .. ':log')
if f[2] then
  rcall('HSET', schedule, 'config_fingerprint', f[2])
end
if token then
  rcall('HSET', schedule, 'fence', ARGV[2])
  if moving then
    rcall('HSET', schedule, 'moved_paused', f[4] == '1' and '1' or '0', 'moved_removed', f[1] and '1' or '0')
    -- A fence an earlier remove left has a time to live: what this move carries must outlive any stop.
    rcall('PERSIST', schedule)
  else
    let_expire()
  end
end
if moving then
  return {'MOVED', f[1] and 1 or 0, f[4] == '1' and '1' or '0', f[2] or ''}
end
if not f[1] then
  return {'NOT_FOUND'}
end
return {'OK'}
