--[[
  trim: retention. Deletes finished jobs beyond a count or older than an age, oldest first,
  so memory stays flat however long the queue runs. Completed and cancelled jobs follow one
  policy, dead jobs another (operators usually keep failures longer). Completed jobs are also
  trimmed on the settle path (complete, complete-claim), so this pass mostly serves cancelled
  and dead jobs and the age bound; the caller repeats it while a call uses its whole budget.

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
-- #include release_idempotency_keys
-- #include trim_finished

local now = now_ms()
local c = trim_finished(prefix, completed, idem, done_count, done_age, now, budget)
budget = budget - c
local x = trim_finished(prefix, cancelled, idem, done_count, done_age, now, budget)
budget = budget - x
local d = trim_finished(prefix, dead, idem, dead_count, dead_age, now, budget)
return {c, x, d}
