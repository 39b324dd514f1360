--[[
  schedule-home: on shard 0 of a sharded queue, the directory of its schedules' shards
  (docs/SHARDING.md, 3.3): each schedule name lives on one shard, the shard of its lane when it
  was first put, so a name is unique over the shards.

  A put or a remove of a name is two steps on two slots (this directory, then the name's home), so
  each step here that lets a change go on hands out a token, fresh and growing, and the home
  applies a change only if no later token was applied there before it (schedule-put and
  schedule-remove compare it with the 'fence' they keep for the name). So a put that was overtaken
  by a remove (or another put) of the same name cannot land after it: without the tokens, a put
  claimed here, a remove ran on the home and released the name, and the put then made a schedule
  no name reached, or, put again from another shard's lane meanwhile, a second schedule of the
  same name.

  Invariant: a name has at most one home shard; 'claim' writes one only where the name has
  none, 'release' deletes it only while it names the caller's shard and no later token was handed
  out for the name, so a step sent again, or late, never moves a name another call placed.

  Input:
    KEYS[1] homes     echomq:{q}:schedule-homes         hash name -> shard
    KEYS[2] tokens    echomq:{q}:schedule-home-tokens   hash name -> the last token handed out; '#seq' -> the last token minted
    ARGV[1] name
    ARGV[2] shard     the shard the caller puts (claim) or removed (release) the schedule on ('' for get and remove)
    ARGV[3] action    'claim', 'remove', 'release' or 'get'
    ARGV[4] token     release: the token its remove was handed

  Output:
    {'HOME', shard, token}  claim: the name's home is the caller's shard, put with this token;
                            remove: the name's home, remove with this token
    {'HOME', shard}         claim: the name's home is another shard (no token); get: its home
    {'NONE'}                get, remove: the name has no home
    {'RELEASED'}            release: the name has no home now
    {'OTHER', shard}        release: the name's home is another shard; nothing changed
    {'LATER'}               release: a later put or remove of the name was handed a token; nothing changed
    {'NONE'}                release: the name had no home
]]
local rcall = redis.call
local homes, tokens, name, shard, action = KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]

local function token()
  local t = rcall('HINCRBY', tokens, '#seq', 1)
  rcall('HSET', tokens, name, t)
  return tostring(t)
end

local home = rcall('HGET', homes, name)
if action == 'get' then
  return home and {'HOME', home} or {'NONE'}
end
if action == 'claim' then
  if not home then
    rcall('HSET', homes, name, shard)
    home = shard
  end
  if home ~= shard then
    return {'HOME', home}
  end
  return {'HOME', home, token()}
end
if not home then
  return {'NONE'}
end
if action == 'remove' then
  return {'HOME', home, token()}
end
if home ~= shard then
  return {'OTHER', home}
end
if rcall('HGET', tokens, name) ~= ARGV[4] then
  return {'LATER'}
end
rcall('HDEL', homes, name)
rcall('HDEL', tokens, name)
return {'RELEASED'}
