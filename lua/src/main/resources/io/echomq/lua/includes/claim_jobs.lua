-- The claim shared by claim and complete-claim: promotes due delayed jobs, then, unless the
-- queue is paused, leases up to max_jobs pending jobs round-robin across lanes (oldest of each
-- lane first), minting each job's token. Returns {} when nothing was claimed, else
-- {deadline, id1, payload1, token1, lane1, created1, idem1, ...}: created is the job's creation
-- time, which with the id names the job in the effect store (an id can repeat after a failover);
-- idem is its idempotency key ('' for none), which the effect store keeps with the effect so that
-- a resubmission Valkey lost track of is not applied twice.
-- Needs push_pending, log_event and integer_text.
--
-- The round-robin is planned before anything is popped, so a lane gives all its jobs of this
-- call in one ZPOPMIN and the ring is rewritten once, instead of a rotation and a pop per job.
-- The outcome is exactly one rotation per job: lanes visited in ring order, a visited lane
-- moved to the back while it has jobs left and dropped from the ring when it has none, the
-- jobs returned in visit order. Only the first max_jobs lanes of the ring can be visited; the
-- rest of the ring stays where it is, ahead of the lanes visited in this call.
local function claim_jobs(prefix, ring, delayed, active, meta, now, lease_ms, max_jobs, worker, promote_limit)
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
  local lanes = redis.call('LRANGE', ring, 0, max_jobs - 1)
  if #lanes == 0 then
    return {}
  end

  -- The plan: rotation is the ring as the one-job-at-a-time claim would rotate it; a 0 in it
  -- stands for the lanes beyond the first max_jobs, which no visit can reach.
  local left, take, rotation, visits = {}, {}, {}, {}
  for i, lane in ipairs(lanes) do
    left[i] = redis.call('ZCARD', prefix .. 'pending:' .. lane)
    take[i] = 0
    rotation[i] = i
  end
  local more_lanes = #lanes == max_jobs and redis.call('LLEN', ring) > max_jobs
  if more_lanes then
    rotation[#rotation + 1] = 0
  end
  local head = 1
  while #visits < max_jobs and head <= #rotation and rotation[head] ~= 0 do
    local i = rotation[head]
    head = head + 1
    if left[i] > 0 then
      visits[#visits + 1] = i
      take[i] = take[i] + 1
      left[i] = left[i] - 1
      if left[i] > 0 then
        rotation[#rotation + 1] = i
      end
    end
  end

  -- The ring as the plan leaves it: what remains of the rotation, with the lanes beyond the
  -- first max_jobs (still in the ring, behind the fetched ones) where the 0 stands.
  local before, after, past_beyond = {}, {}, false
  for k = head, #rotation do
    local i = rotation[k]
    if i == 0 then
      past_beyond = true
    elseif past_beyond then
      after[#after + 1] = lanes[i]
    else
      before[#before + 1] = lanes[i]
    end
  end
  local unchanged = #after == 0 and #before == #lanes
  for k = 1, #before do
    unchanged = unchanged and before[k] == lanes[k]
  end
  if not unchanged then
    redis.call('LTRIM', ring, #lanes, -1)
    if #before > 0 then
      local reversed = {}
      for k = #before, 1, -1 do
        reversed[#reversed + 1] = before[k]
      end
      redis.call('LPUSH', ring, unpack(reversed))
    end
    if #after > 0 then
      redis.call('RPUSH', ring, unpack(after))
    end
  end
  if #visits == 0 then
    return {}
  end

  local popped, next_of = {}, {}
  for i, lane in ipairs(lanes) do
    if take[i] > 0 then
      popped[i] = redis.call('ZPOPMIN', prefix .. 'pending:' .. lane, take[i])
      next_of[i] = 1
    end
  end
  local deadline = now + lease_ms
  local now_text, deadline_text = integer_text(now), integer_text(deadline)
  local out, leases = {deadline}, {}
  for _, i in ipairs(visits) do
    local id = popped[i][next_of[i]]
    next_of[i] = next_of[i] + 2
    local job = prefix .. 'job:' .. id
    local fields = redis.call('HMGET', job, 'attempts', 'payload', 'created_at', 'idem')
    local token = (tonumber(fields[1]) or 0) + 1
    local token_text = integer_text(token)
    redis.call('HSET', job, 'attempts', token_text, 'state', 'active', 'lease_until', deadline_text,
      'claimed_at', now_text, 'worker', worker)
    log_event(prefix, id, now_text, 'claimed', token_text, worker, deadline_text, '')
    leases[#leases + 1] = deadline_text
    leases[#leases + 1] = id
    out[#out + 1] = id
    out[#out + 1] = fields[2]
    out[#out + 1] = token
    out[#out + 1] = lanes[i]
    out[#out + 1] = fields[3]
    out[#out + 1] = fields[4] or ''
  end
  redis.call('ZADD', active, unpack(leases))
  return out
end
