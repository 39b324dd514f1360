-- The acknowledgement shared by complete and complete-claim: moves one job the caller holds
-- from active to completed, fenced by its token (a stale or settled lease changes nothing).
-- Returns {'OK', finished_at} or fence's rejection. Needs now_ms, log_event and fence.
local function complete_one(prefix, active, completed, id, token)
  local job = prefix .. 'job:' .. id
  local rejected = fence(prefix, id, job, token, 'complete')
  if rejected then
    return rejected
  end
  local now = now_ms()
  redis.call('ZREM', active, id)
  redis.call('ZADD', completed, now, id)
  redis.call('HSET', job, 'state', 'completed', 'finished_at', now)
  redis.call('HDEL', job, 'lease_until')
  log_event(prefix, id, now, 'completed', token, redis.call('HGET', job, 'worker'), nil, '')
  return {'OK', now}
end
