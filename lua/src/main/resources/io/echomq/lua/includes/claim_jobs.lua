-- The claim shared by claim and complete-claim: promotes due delayed jobs, then, unless the
-- queue is paused, leases up to max_jobs pending jobs round-robin across lanes (within a lane,
-- highest priority first, then oldest), within the queue's and the lanes' caps and rate limits
-- (see limits), minting each job's token. Returns {} when nothing was claimed, else
-- {deadline, id1, payload1, token1, lane1, created1, idem1, ...}: created is the job's creation
-- time, which with the id names the job in the effect store (an id can repeat after a failover);
-- idem is its idempotency key ('' for none), which the effect store keeps with the effect so that
-- a resubmission Valkey lost track of is not applied twice.
-- Needs push_pending, log_event, integer_text and limits.
--
-- The round-robin is planned before anything is popped, so a lane gives all its jobs of this
-- call in one ZPOPMIN and the ring is rewritten once, instead of a rotation and a pop per job.
-- The outcome is exactly one rotation per job: lanes visited in ring order, a visited lane
-- moved to the back while it has jobs left and dropped from the ring when it has none, the
-- jobs returned in visit order. Only the first max_jobs lanes of the ring can be visited; the
-- rest of the ring stays where it is, ahead of the lanes visited in this call.
--
-- A lane whose limit allows fewer jobs than it has is visited for what it may start, then held
-- (out of the ring until wake_held_lanes lets it back). When a round held a lane and the call
-- still has room, another round plans over the ring as it now is, looking LANE_LOOKAHEAD lanes
-- further than it could visit, at most MAX_CLAIM_ROUNDS in all, so that limited lanes at the
-- front of the ring cannot make a claim come back empty. The first round looks no further than
-- the plain claim: while no lane is at its limit, limits cost the claim almost nothing.
local MAX_CLAIM_ROUNDS, LANE_LOOKAHEAD = 8, 32

-- Leases one popped job: mints its token, records the lease on the job and in its history, and
-- adds it to the call's reply. Under a rate limit, returns its start, id:token, unique to this
-- lease (a job claimed again within the window is a second start).
local function lease_job(lease, lane, id)
  local job = lease.prefix .. 'job:' .. id
  local fields = redis.call('HMGET', job, 'attempts', 'payload', 'created_at', 'idem')
  local token = (tonumber(fields[1]) or 0) + 1
  local token_text = integer_text(token)
  redis.call('HSET', job, 'attempts', token_text, 'state', 'active', 'lease_until', lease.deadline_text,
    'claimed_at', lease.now_text, 'worker', lease.worker)
  log_event(lease.prefix, id, lease.now_text, 'claimed', token_text, lease.worker, lease.deadline_text, '', fields[3], lane)
  local leases, out = lease.leases, lease.out
  leases[#leases + 1] = lease.deadline_text
  leases[#leases + 1] = id
  out[#out + 1] = id
  out[#out + 1] = fields[2]
  out[#out + 1] = token
  out[#out + 1] = lane
  out[#out + 1] = fields[3]
  out[#out + 1] = fields[4] or ''
  lease.count = lease.count + 1
  if lease.rate_limited then
    local start = id .. ':' .. token_text
    lease.starts[#lease.starts + 1] = start
    return start
  end
end

-- One round of the plan, visiting up to `want` jobs' lanes among the first want + lookahead
-- lanes of the ring: rewrites the ring, leases the jobs it pops (lease_job) and holds the lanes
-- whose limit it exhausted. Returns whether it held a lane.
local function claim_round(prefix, ring, active, now, limits, lease, want, lookahead)
  local limited = lanes_limited(limits)
  local fetch = want + lookahead
  local lanes = redis.call('LRANGE', ring, 0, fetch - 1)
  if #lanes == 0 then
    return false
  end

  -- The plan: rotation is the ring as the one-job-at-a-time claim would rotate it; a 0 in it
  -- stands for the lanes beyond the fetched ones, which no visit can reach. left is what a lane
  -- may still give: its pending jobs, or fewer when its limit allows fewer; it is read when the
  -- plan first reaches the lane, so the lanes looked ahead at cost nothing unless reached.
  local left, take, rotation, visits, capped = {}, {}, {}, {}, {}
  for i = 1, #lanes do
    take[i] = 0
    rotation[i] = i
  end
  local function reach(i)
    local lane = lanes[i]
    left[i] = redis.call('ZCARD', prefix .. 'pending:' .. lane)
    if limited then
      local allowance = lane_allowance(prefix, active, lane, now, limits, false, math.max(1, math.min(left[i], want)))
      if allowance < left[i] then
        left[i] = allowance
        capped[i] = true
      end
    end
  end
  local more_lanes = #lanes == fetch and redis.call('LLEN', ring) > fetch
  if more_lanes then
    rotation[#rotation + 1] = 0
  end
  local head = 1
  while #visits < want and head <= #rotation and rotation[head] ~= 0 do
    local i = rotation[head]
    head = head + 1
    if not left[i] then
      reach(i)
    end
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
  -- fetched ones (still in the ring, behind them) where the 0 stands. A capped lane that may give
  -- nothing more still has jobs: it leaves the ring to be held, whether the plan reached it or not.
  local before, after, past_beyond = {}, {}, false
  for k = head, #rotation do
    local i = rotation[k]
    if i == 0 then
      past_beyond = true
    elseif capped[i] and left[i] == 0 then
      -- held below, once this round's starts are counted
    elseif past_beyond then
      after[#after + 1] = lanes[i]
    else
      before[#before + 1] = lanes[i]
    end
  end
  -- Only the front of the fetched lanes that changed is rewritten: the lanes at their end that
  -- keep their place (the ones looked ahead at and not reached) stay in the list untouched.
  local kept = 0
  while kept < #before and before[#before - kept] == lanes[#lanes - kept] do
    kept = kept + 1
  end
  if #lanes > kept then
    redis.call('LTRIM', ring, #lanes - kept, -1)
  end
  if #before > kept then
    local reversed = {}
    for k = #before - kept, 1, -1 do
      reversed[#reversed + 1] = before[k]
    end
    redis.call('LPUSH', ring, unpack(reversed))
  end
  if #after > 0 then
    redis.call('RPUSH', ring, unpack(after))
  end

  local popped, next_of, started = {}, {}, {}
  for i, lane in ipairs(lanes) do
    if take[i] > 0 then
      popped[i] = redis.call('ZPOPMIN', prefix .. 'pending:' .. lane, take[i])
      next_of[i] = 1
      started[i] = {}
      if limits.lane_max_active then
        local ids = {}
        for k = 1, #popped[i], 2 do
          ids[#ids + 1] = popped[i][k]
        end
        redis.call('SADD', prefix .. 'active:' .. lane, unpack(ids))
      end
    end
  end
  for _, i in ipairs(visits) do
    local id = popped[i][next_of[i]]
    next_of[i] = next_of[i] + 2
    started[i][#started[i] + 1] = lease_job(lease, lanes[i], id)
  end

  -- A lane is held only once this round's starts are logged, so a rate-held lane's time is right.
  local held = false
  for i, lane in ipairs(lanes) do
    if take[i] > 0 and limits.lane_rate_max then
      log_starts(prefix .. 'started:' .. lane, now, limits.lane_rate_window, started[i])
    end
    if capped[i] and left[i] == 0 then
      local _, hold_until = lane_allowance(prefix, active, lane, now, limits, false, 1)
      redis.call('ZADD', prefix .. 'held', hold_until or now, lane)
      held = true
    end
  end
  return held
end

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
  local limits = read_limits(meta)
  if max_jobs < 1 or limits.paused then
    return {}
  end
  wake_held_lanes(prefix, ring, active, now, limits, math.max(promote_limit, max_jobs))
  local budget = math.min(max_jobs, queue_allowance(prefix, active, now, limits, max_jobs))
  local deadline = now + lease_ms
  local lease = {prefix = prefix, worker = worker, now_text = integer_text(now), deadline_text = integer_text(deadline),
    out = {deadline}, leases = {}, starts = {}, count = 0,
    rate_limited = limits.rate_max ~= nil or limits.lane_rate_max ~= nil}
  for round = 1, MAX_CLAIM_ROUNDS do
    local want = budget - lease.count
    if want < 1 or not claim_round(prefix, ring, active, now, limits, lease, want, round == 1 and 0 or LANE_LOOKAHEAD) then
      break
    end
  end
  if lease.count == 0 then
    return {}
  end
  redis.call('ZADD', active, unpack(lease.leases))
  if limits.rate_max then
    log_starts(prefix .. 'started', now, limits.rate_window, lease.starts)
  end
  return lease.out
end
