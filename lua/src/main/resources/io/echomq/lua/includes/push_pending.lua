-- Puts a job into its lane's pending set, scored by its id (mint order), and keeps the
-- lane ring exact: a lane is in the ring if and only if its pending set is non-empty. The id
-- (digits) is its own score, given as text: a number would be formatted anew (see integer_text).
local function push_pending(prefix, ring, lane, id)
  local pending = prefix .. 'pending:' .. lane
  redis.call('ZADD', pending, id, id)
  if redis.call('ZCARD', pending) == 1 then
    redis.call('RPUSH', ring, lane)
  end
  redis.call('HSET', prefix .. 'job:' .. id, 'state', 'pending')
end
