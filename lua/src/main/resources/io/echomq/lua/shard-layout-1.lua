--[[
  shard-layout: records how one shard of a sharded queue mints job ids (docs/SHARDING.md, 1 and
  10): the n-th id of shard s of N is n × N + s (see includes/mint_id), so ids are unique over the
  shards and an id names its shard. A queue of one shard records nothing (its meta stays as it was).

  Invariant: a shard's layout changes only while the shard holds no job in any state (no lane in
  the ring or held, and the delayed, active, completed, dead, cancelled and waiting sets empty),
  so no job ever sits on a shard that its id does not name; a shard holding jobs under another
  layout is left unchanged.

  A change also drops the shard's key-home fences ('fence:idem', 'fence:dedupe', 'fence-floor',
  docs/SHARDING.md 3.1 and 10): they refuse tokens of owner shards of the old layout, whose token
  counts ('home_seq') live under that layout's tags; kept, a floor would refuse the new layout's
  owners, whose counts start again, until they passed it. Nothing they guarded is left: the caller
  refused the change while any key home was recorded, and no job is on the shard.

  Input:
    KEYS[1] meta      the shard's meta hash (echomq:{q}:meta for shard 0, echomq:{q#s.k}:meta for shard s)
    ARGV[1] prefix    the shard's prefix, for its state sets
    ARGV[2] shards    N (>= 1)
    ARGV[3] shard     s, this shard's index (0 <= s < N)
    ARGV[4] 'record', or 'check' to answer as 'record' would and change nothing
    ARGV[5] '1' on the queue's shard 0 ('' or absent elsewhere): recording a change also makes its
            schedules' directory ('schedule-homes', docs/SHARDING.md 3.3) name shard 0 for each
            schedule there and nothing else (the caller refused the change while any schedule
            lives on another shard, see ShardLayouts)

  Output:
    {'SET'}                          the layout is recorded now (or, for 'check', would be)
    {'SAME'}                         it was already this layout; nothing changed
    {'HOLDS_JOBS', shards, shard, jobs}  the shard has another layout (shards, shard as recorded;
                                     1 and 0 when none) and holds this many jobs: nothing changed
]]
local rcall = redis.call
local meta, prefix = KEYS[1], ARGV[1]
local shards, shard, check = ARGV[2], ARGV[3], ARGV[4] == 'check'

local recorded = rcall('HMGET', meta, 'id_stride', 'id_offset')
local old_shards, old_shard = recorded[1] or '1', recorded[2] or '0'
if old_shards == shards and old_shard == shard then
  return {'SAME'}
end

-- Lanes with pending work are in the ring or held; every other state has its sorted set.
local jobs = 0
for _, lane in ipairs(rcall('LRANGE', prefix .. 'lanes', 0, -1)) do
  jobs = jobs + rcall('ZCARD', prefix .. 'pending:' .. lane)
end
for _, lane in ipairs(rcall('ZRANGE', prefix .. 'held', 0, -1)) do
  jobs = jobs + rcall('ZCARD', prefix .. 'pending:' .. lane)
end
for _, state in ipairs({'delayed', 'active', 'completed', 'dead', 'cancelled', 'waiting'}) do
  jobs = jobs + rcall('ZCARD', prefix .. state)
end
if jobs > 0 then
  return {'HOLDS_JOBS', old_shards, old_shard, jobs}
end
if check then
  return {'SET'}
end

rcall('DEL', prefix .. 'fence:idem', prefix .. 'fence:dedupe', prefix .. 'fence-floor')
if ARGV[5] == '1' then
  local homes = prefix .. 'schedule-homes'
  rcall('DEL', homes)
  for _, name in ipairs(rcall('ZRANGE', prefix .. 'schedules', 0, -1)) do
    rcall('HSET', homes, name, '0')
  end
end
if shards == '1' then
  rcall('HDEL', meta, 'id_stride', 'id_offset')
else
  rcall('HSET', meta, 'id_stride', shards, 'id_offset', shard)
end
return {'SET'}
