--[[
  schedule-home: on shard 0 of a sharded queue, the directory of its schedules' shards
  (docs/SHARDING.md, 3.3): each schedule name lives on one shard, the shard of its lane when it
  was first put, so a name is unique over the shards.

  Invariant: a name has at most one home shard; 'claim' writes one only where the name has
  none, 'release' deletes it only while it names the caller's shard, so a step sent again, or
  late, never moves a name another call placed.

  Input:
    KEYS[1] homes     echomq:{q}:schedule-homes   hash name -> shard
    ARGV[1] name
    ARGV[2] shard     the shard the caller puts (claim) or removed (release) the schedule on ('' for get)
    ARGV[3] action    'claim', 'release' or 'get'

  Output:
    {'HOME', shard}   claim: the name's home, the caller's shard unless it had another; get: its home
    {'NONE'}          get: the name has no home
    {'RELEASED'}      release: the name has no home now
    {'OTHER', shard}  release: the name's home is another shard; nothing changed
    {'NONE'}          release: the name had no home
]]
local rcall = redis.call
local homes, name, shard, action = KEYS[1], ARGV[1], ARGV[2], ARGV[3]

local home = rcall('HGET', homes, name)
if action == 'get' then
  return home and {'HOME', home} or {'NONE'}
end
if action == 'claim' then
  if not home then
    rcall('HSET', homes, name, shard)
    home = shard
  end
  return {'HOME', home}
end
if not home then
  return {'NONE'}
end
if home ~= shard then
  return {'OTHER', home}
end
rcall('HDEL', homes, name)
return {'RELEASED'}
