--[[
  key-home-confirm: on the owner shard of a key K of a sharded queue, settles K's home entry by
  compare-and-set on its home and token (steps H3 and the sweeper's repair, docs/SHARDING.md 3.1):
  'confirm' marks a reservation confirmed once its home holds K's job or window; 'stale' answers
  whether a reservation is older than a grace on this shard's clock, changing nothing; 'forget'
  deletes the entry once its home was fenced and holds nothing for K.

  Invariant: an entry changes only when it still names the home and token the caller saw, so a
  step sent again, or late, never touches a newer reservation (K2).

  Input:
    KEYS[1] homes     echomq:{q#s.k}:homes:<kind>   hash K -> '<home>:<token>:<state>:<ms>'
    ARGV[1] key       K
    ARGV[2] expected  '<home>:<token>'
    ARGV[3] action    'confirm', 'stale' or 'forget'
    ARGV[4] grace in ms (for 'stale')

  Output:
    {'DONE'}       confirmed, forgotten, or (stale) a reservation older than the grace
    {'YOUNG'}      stale: the entry is confirmed or younger than the grace
    {'CHANGED'}    the entry is gone or names another home or token; nothing changed
]]
local rcall = redis.call
local homes, key, expected, action = KEYS[1], ARGV[1], ARGV[2], ARGV[3]

-- #include now_ms

local entry = rcall('HGET', homes, key)
if not entry then
  return {'CHANGED'}
end
local home, token, state, at = string.match(entry, '^(%d+):(%d+):(%a+):(%d+)$')
if home .. ':' .. token ~= expected then
  return {'CHANGED'}
end
if action == 'confirm' then
  if state == 'reserved' then
    rcall('HSET', homes, key, home .. ':' .. token .. ':confirmed:' .. now_ms())
  end
elseif action == 'stale' then
  if state ~= 'reserved' or now_ms() - tonumber(at) < tonumber(ARGV[4]) then
    return {'YOUNG'}
  end
else
  rcall('HDEL', homes, key)
end
return {'DONE'}
