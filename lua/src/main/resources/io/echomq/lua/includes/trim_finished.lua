-- Retention, shared by trim and the settle path (complete, complete-claim): deletes the oldest
-- jobs of one finished set (completed, cancelled or dead) beyond keep_count and those that
-- finished more than max_age ms before now, at most budget of them, each with its history and
-- its idempotency keys (those that still name it). Returns how many went. Needs
-- release_idempotency_keys.
-- Scores are finish times, so the jobs finished before now - max_age are exactly the lowest
-- ranks: one count of them and of the excess says how many of the oldest to delete.
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
  for _, id in ipairs(redis.call('ZRANGE', set, 0, n - 1)) do
    local job = prefix .. 'job:' .. id
    release_idempotency_keys(idem, job, id)
    redis.call('DEL', job, job .. ':log')
  end
  redis.call('ZREMRANGEBYRANK', set, 0, n - 1)
  return n
end
