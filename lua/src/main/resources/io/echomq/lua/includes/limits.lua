-- Concurrency caps and rate limits, for the whole queue and for each lane, read from the
-- queue's meta hash (set by set-limits) and enforced by the claim on the server clock.
--
-- Per lane, the claim needs two facts: how many of the lane's jobs are active (the set
-- active:<lane>, filled by claim_jobs while a lane cap is set, rebuilt from the active set when
-- one is set, and emptied by leave_active on every way out of the active set),
-- and how many the lane started in the last window (the log started:<lane>, a sorted set of
-- start times, kept only while a lane rate limit is set). A lane that has pending jobs but no
-- allowance is held: out of the ring, in the sorted set 'held' scored by when to look at it
-- again, so a limited lane never sits in front of the others. push_pending leaves a held lane
-- out of the ring; wake_held_lanes puts it back.
--
-- The queue's own cap counts the active set; its rate limit logs starts in 'started'.
-- A rate limit of R per W ms means: at most R claims in any W ms (a sliding window).

-- A lane held by its cap is looked at again when one of its jobs leaves the active set
-- (leave_active), and at the latest after this long, which also heals a count that missed an exit.
local CAP_RECHECK_MS = 1000

local function read_limits(meta)
  local m = redis.call('HMGET', meta, 'paused', 'max_active', 'rate_max', 'rate_window_ms',
    'lane_max_active', 'lane_rate_max', 'lane_rate_window_ms')
  return {
    paused = m[1] == '1',
    max_active = tonumber(m[2]), rate_max = tonumber(m[3]), rate_window = tonumber(m[4]),
    lane_max_active = tonumber(m[5]), lane_rate_max = tonumber(m[6]), lane_rate_window = tonumber(m[7]),
  }
end

local function lanes_limited(limits)
  return limits.lane_max_active ~= nil or limits.lane_rate_max ~= nil
end

-- How many starts of a log count against a limit of max per window, for a caller that would
-- start up to wanted: the starts inside the window (now - window, now], or, when even counting
-- the older ones leaves room for wanted, that count. Starts that left the window since the last
-- log_starts are dropped here only when they could stand in the way, which spares the claim a
-- command while a limit is far off.
local function starts_in_window(log, now, window, max, wanted)
  local count = redis.call('ZCARD', log)
  if max - count < wanted then
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window)
    count = redis.call('ZCARD', log)
  end
  return count
end

-- When a full start log frees a place: its oldest start leaves the window.
local function window_frees_at(log, window)
  local oldest = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window
end

-- How many of wanted jobs the whole queue may still start now (math.huge when it has no limit).
local function queue_allowance(prefix, active, now, limits, wanted)
  local allowance = math.huge
  if limits.max_active then
    allowance = limits.max_active - redis.call('ZCARD', active)
  end
  if limits.rate_max then
    allowance = math.min(allowance, limits.rate_max
      - starts_in_window(prefix .. 'started', now, limits.rate_window, limits.rate_max, wanted))
  end
  return allowance
end

-- How many of wanted jobs a lane may still start now, and, when none, until when it is held. With
-- verify, the lane's active set is first checked against the active set (at a recheck, not
-- on the claim's hot path), so an id that left without leave_active cannot hold a lane for ever.
local function lane_allowance(prefix, active, lane, now, limits, verify, wanted)
  local allowance = math.huge
  if limits.lane_max_active then
    local running = prefix .. 'active:' .. lane
    local count = redis.call('SCARD', running)
    if verify and count >= limits.lane_max_active then
      for _, id in ipairs(redis.call('SMEMBERS', running)) do
        if not redis.call('ZSCORE', active, id) then
          redis.call('SREM', running, id)
          count = count - 1
        end
      end
    end
    allowance = limits.lane_max_active - count
    if allowance <= 0 then
      return 0, now + CAP_RECHECK_MS
    end
  end
  if limits.lane_rate_max then
    local log = prefix .. 'started:' .. lane
    local free = limits.lane_rate_max - starts_in_window(log, now, limits.lane_rate_window, limits.lane_rate_max, wanted)
    if free <= 0 then
      return 0, window_frees_at(log, limits.lane_rate_window)
    end
    allowance = math.min(allowance, free)
  end
  return allowance, nil
end

-- Records the starts of one call: id:token members, so every claim is its own entry. Starts
-- that left the window go first, so a log holds the starts of one window (plus one call's),
-- however high the limit: a busy lane's log never expires, and a log trimmed only when full
-- would grow towards the limit's maximum and then be trimmed in one long command inside a
-- claim. Each start is removed once, so the trim costs a claim no more than its own starts.
-- The log expires a window after its last start, so a limit removed leaves nothing behind.
local function log_starts(log, now, window, members)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window)
  local args = {}
  for _, member in ipairs(members) do
    args[#args + 1] = now
    args[#args + 1] = member
  end
  redis.call('ZADD', log, unpack(args))
  redis.call('PEXPIRE', log, window)
end

-- Puts held lanes whose time has come back into the ring (at most limit of them), or holds
-- them again; a held lane without pending jobs is simply let go (push_pending rings it again).
local function wake_held_lanes(prefix, ring, active, now, limits, limit)
  local due = redis.call('ZRANGEBYSCORE', prefix .. 'held', '-inf', now, 'LIMIT', 0, limit)
  for _, lane in ipairs(due) do
    local allowance, hold_until = lane_allowance(prefix, active, lane, now, limits, true, 1)
    if redis.call('ZCARD', prefix .. 'pending:' .. lane) == 0 then
      redis.call('ZREM', prefix .. 'held', lane)
    elseif allowance > 0 then
      redis.call('ZREM', prefix .. 'held', lane)
      redis.call('RPUSH', ring, lane)
    else
      redis.call('ZADD', prefix .. 'held', hold_until, lane)
    end
  end
end
