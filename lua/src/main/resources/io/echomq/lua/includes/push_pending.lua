-- Puts a job into its lane's pending set and keeps the lane ring exact: a lane is in the ring
-- if and only if its pending set is non-empty and the lane is not held by a limit (see
-- claim_jobs). The score orders the lane's claims: mint order (the id) shifted by the job's
-- priority, PRIORITY_STEP ids per level (see pending_score). priority is the job's priority
-- when the caller has it at hand, else nil and it is read from the job (absent: the default).
local PRIORITY_DEFAULT, PRIORITY_STEP = 4, 1000000

-- A job of priority p is claimed as if it had been minted (p - 4) * PRIORITY_STEP ids earlier:
-- within a lane, a higher priority goes first, and a waiting job is overtaken by at most
-- PRIORITY_STEP later submissions per level of difference, so no priority starves for ever
-- (aging by mint order; no rescoring needed). The default priority's score is the id itself,
-- as text: a number would be formatted anew (see integer_text).
local function pending_score(id, priority)
  if priority == PRIORITY_DEFAULT then
    return id
  end
  return string.format('%d', tonumber(id) - (priority - PRIORITY_DEFAULT) * PRIORITY_STEP)
end

local function push_pending(prefix, ring, lane, id, priority)
  local job = prefix .. 'job:' .. id
  if not priority then
    priority = tonumber(redis.call('HGET', job, 'priority')) or PRIORITY_DEFAULT
  end
  local pending = prefix .. 'pending:' .. lane
  redis.call('ZADD', pending, pending_score(id, priority), id)
  if redis.call('ZCARD', pending) == 1 and not redis.call('ZSCORE', prefix .. 'held', lane) then
    redis.call('RPUSH', ring, lane)
  end
  redis.call('HSET', job, 'state', 'pending')
end
