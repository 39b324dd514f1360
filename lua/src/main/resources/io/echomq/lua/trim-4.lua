--[[
  trim: retention. Deletes finished jobs beyond a count or older than an age, oldest first,
  so memory stays flat however long the queue runs. Completed and cancelled jobs follow one
  policy, dead jobs another (operators usually keep failures longer).

  Invariant: only finished jobs (completed, cancelled, dead) are ever deleted; a deleted
  job's idempotency key is released with it. At most ARGV[6] jobs go per call.

  Input:
    KEYS[1] completed  echomq:{q}:completed
    KEYS[2] cancelled  echomq:{q}:cancelled
    KEYS[3] dead       echomq:{q}:dead
    KEYS[4] idem       echomq:{q}:idem
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] keep at most this many completed (and, separately, cancelled) jobs (>= 0)
    ARGV[3] keep completed and cancelled jobs at most this many ms (>= 0)
    ARGV[4] keep at most this many dead jobs (>= 0)
    ARGV[5] keep dead jobs at most this many ms (>= 0)
    ARGV[6] max jobs to delete in this call (>= 1)

  Output:
    {completed_deleted, cancelled_deleted, dead_deleted}
]]
local rcall = redis.call
local completed, cancelled, dead, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
local done_count, done_age = tonumber(ARGV[2]), tonumber(ARGV[3])
local dead_count, dead_age = tonumber(ARGV[4]), tonumber(ARGV[5])
local budget = tonumber(ARGV[6])

-- #include now_ms

local function delete_job(set, id)
  local job = prefix .. 'job:' .. id
  local idem_key = rcall('HGET', job, 'idem')
  if idem_key and rcall('HGET', idem, idem_key) == id then
    rcall('HDEL', idem, idem_key)
  end
  rcall('DEL', job, job .. ':log')
  rcall('ZREM', set, id)
end

local now = now_ms()

-- Deletes the oldest members beyond keep_count, then those older than max_age; returns
-- how many went. Scores are finish times, so the oldest come first.
local function trim_set(set, keep_count, max_age)
  local deleted = 0
  local excess = rcall('ZCARD', set) - keep_count
  if excess > 0 and budget > 0 then
    local n = math.min(excess, budget)
    for _, id in ipairs(rcall('ZRANGE', set, 0, n - 1)) do
      delete_job(set, id)
    end
    deleted, budget = deleted + n, budget - n
  end
  if budget > 0 then
    local old = rcall('ZRANGEBYSCORE', set, '-inf', now - max_age, 'LIMIT', 0, budget)
    for _, id in ipairs(old) do
      delete_job(set, id)
    end
    deleted, budget = deleted + #old, budget - #old
  end
  return deleted
end

local c = trim_set(completed, done_count, done_age)
local x = trim_set(cancelled, done_count, done_age)
local d = trim_set(dead, dead_count, dead_age)
return {c, x, d}
