-- Puts a job into its lane's pending set, scored by its id (mint order), and keeps the
-- lane ring exact: a lane is in the ring if and only if its pending set is non-empty.
local function push_pending(prefix, ring, lane, id)
  local pending = prefix .. 'pending:' .. lane
  redis.call('ZADD', pending, tonumber(id), id)
  if redis.call('ZCARD', pending) == 1 then
    redis.call('RPUSH', ring, lane)
  end
  redis.call('HSET', prefix .. 'job:' .. id, 'state', 'pending')
end
