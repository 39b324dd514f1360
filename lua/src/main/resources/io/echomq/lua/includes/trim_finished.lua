-- Retention, shared by trim and the settle path (complete, complete-claim): deletes the oldest
-- jobs of one finished set (completed, cancelled or dead) beyond keep_count and those that
-- finished more than max_age ms before now, at most budget of them, each with its history and
-- its idempotency keys (those that still name it). Returns how many went. Needs
-- release_idempotency_keys.
-- Scores are finish times, so the jobs finished before now - max_age are exactly the lowest
-- ranks: one count of them and of the excess says how many of the oldest to delete.
-- A flow child whose settlement notice its parent has not yet acknowledged ('notice', see
-- notify_parent) is kept: it goes back to the young end of its set (scored now), so the parent's
-- repair never finds a child missing that once existed (F4) and the bound holds again once the
-- relay has run.
local function trim_finished(prefix, set, idem, keep_count, max_age, now, budget)
  if budget < 1 then
    return 0
  end
  local excess = redis.call('ZCARD', set) - keep_count
  local too_old = redis.call('ZCOUNT', set, '-inf', now - max_age)
  local n = math.min(budget, math.max(excess, too_old))
  if n < 1 then
    return 0
  end
  local kept = {}
  for _, id in ipairs(redis.call('ZRANGE', set, 0, n - 1)) do
    local job = prefix .. 'job:' .. id
    if redis.call('HEXISTS', job, 'notice') == 1 then
      kept[#kept + 1] = now
      kept[#kept + 1] = id
    else
      release_idempotency_keys(idem, job, id)
      redis.call('DEL', job, job .. ':log', job .. ':flow')
    end
  end
  redis.call('ZREMRANGEBYRANK', set, 0, n - 1)
  if #kept > 0 then
    redis.call('ZADD', set, unpack(kept))
  end
  return n - #kept / 2
end
