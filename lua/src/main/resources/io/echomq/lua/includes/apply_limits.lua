-- Writes the caps and rate limits a queue (or one shard of it) enforces into its meta hash and
-- lets the claim see the change at once (set-limits, shard-meta). values holds six strings in the
-- order of the fields below, '' for none. Touches no job: a job that waits for a limit stays
-- pending, in its lane's pending set. Without lane limits no lane is held: clearing them puts
-- every held lane with pending jobs back in the ring; otherwise every held lane is looked at again
-- by the next claim, so a limit raised frees the lanes it held at once. When a lane cap is set
-- where there was none, each lane's set of active jobs is rebuilt from the active set (it is not
-- kept while no lane cap is set), so jobs already running count against the new cap. Returns how
-- many active jobs were counted into their lanes' sets.
local function apply_limits(prefix, meta, active, held, ring, values)
  local fields = {'max_active', 'rate_max', 'rate_window_ms', 'lane_max_active', 'lane_rate_max', 'lane_rate_window_ms'}
  local had_lane_cap = redis.call('HEXISTS', meta, 'lane_max_active') == 1
  for i, field in ipairs(fields) do
    if values[i] == '' then
      redis.call('HDEL', meta, field)
    else
      redis.call('HSET', meta, field, values[i])
    end
  end

  local rebuilt = 0
  if values[4] ~= '' and not had_lane_cap then
    for _, id in ipairs(redis.call('ZRANGE', active, 0, -1)) do
      local lane = redis.call('HGET', prefix .. 'job:' .. id, 'lane')
      if lane then
        redis.call('SADD', prefix .. 'active:' .. lane, id)
        rebuilt = rebuilt + 1
      end
    end
  end
  if values[4] == '' and values[5] == '' then
    for _, lane in ipairs(redis.call('ZRANGE', held, 0, -1)) do
      if redis.call('EXISTS', prefix .. 'pending:' .. lane) == 1 then
        redis.call('RPUSH', ring, lane)
      end
    end
    redis.call('DEL', held)
  elseif redis.call('EXISTS', held) == 1 then
    redis.call('ZUNIONSTORE', held, 1, held, 'WEIGHTS', 0)
  end
  return rebuilt
end
