-- Takes a job that no worker holds out of the structure of its waiting state: its lane's
-- pending set (dropping the lane from the ring when that empties it), the delayed set, or the
-- flow parents' waiting set.
-- Returns false, touching nothing, for any other state. Needs remove_pending.
local function unqueue(prefix, ring, delayed, job, id, state, lane)
  if state == 'pending' then
    remove_pending(prefix, ring, lane, id)
    return true
  end
  if state == 'delayed' then
    redis.call('ZREM', delayed, id)
    redis.call('HDEL', job, 'due_at')
    return true
  end
  if state == 'waiting-children' then
    redis.call('ZREM', prefix .. 'waiting', id)
    return true
  end
  return false
end
