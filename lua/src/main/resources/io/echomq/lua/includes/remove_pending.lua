-- Takes a job out of its lane's pending set and drops the lane from the ring when that
-- empties it (the ring holds exactly the lanes that have pending work).
local function remove_pending(prefix, ring, lane, id)
  local pending = prefix .. 'pending:' .. lane
  redis.call('ZREM', pending, id)
  if redis.call('ZCARD', pending) == 0 then
    redis.call('LREM', ring, 0, lane)
  end
end
