-- The claim shared by claim and complete-claim: promotes due delayed jobs, then, unless the
-- queue is paused, leases up to max_jobs pending jobs round-robin across lanes (oldest of each
-- lane first), minting each job's token. Returns {} when nothing was claimed, else
-- {deadline, id1, payload1, token1, lane1, ...}. Needs now_ms, push_pending and log_event.
local function claim_jobs(prefix, ring, delayed, active, meta, lease_ms, max_jobs, worker, promote_limit)
  local now = now_ms()
  if promote_limit > 0 then
    local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, promote_limit)
    for _, id in ipairs(due) do
      local job = prefix .. 'job:' .. id
      redis.call('ZREM', delayed, id)
      redis.call('HDEL', job, 'due_at')
      push_pending(prefix, ring, redis.call('HGET', job, 'lane'), id)
      log_event(prefix, id, now, 'promoted', nil, nil, nil, 'due')
    end
  end
  if max_jobs < 1 or redis.call('HGET', meta, 'paused') == '1' then
    return {}
  end
  local deadline = now + lease_ms
  local out = {deadline}
  for _ = 1, max_jobs do
    local lane = redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
    if not lane then
      break
    end
    local pending = prefix .. 'pending:' .. lane
    local popped = redis.call('ZPOPMIN', pending)
    if redis.call('ZCARD', pending) == 0 then
      redis.call('LREM', ring, -1, lane)
    end
    if #popped > 0 then
      local id = popped[1]
      local job = prefix .. 'job:' .. id
      local token = redis.call('HINCRBY', job, 'attempts', 1)
      redis.call('HSET', job, 'state', 'active', 'lease_until', deadline, 'claimed_at', now, 'worker', worker)
      redis.call('ZADD', active, deadline, id)
      log_event(prefix, id, now, 'claimed', token, worker, deadline, '')
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGET', job, 'payload')
      out[#out + 1] = token
      out[#out + 1] = lane
    end
  end
  if #out == 1 then
    return {}
  end
  return out
end
