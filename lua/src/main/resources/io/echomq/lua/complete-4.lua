--[[
  complete: the acknowledgement. Moves a job the caller holds from active to completed, then
  deletes the oldest completed jobs beyond the retention bounds (at most two), so retention
  keeps pace with any completion rate.

  Invariant: fenced by the token and the job's creation time, so a stale worker (a zombie
  whose lease expired and was claimed again, or the holder of a job a failover lost whose id
  was handed out again) cannot settle the job; the rejection changes nothing. A lease that
  expired but was not yet reaped may still be completed by its holder: nobody else holds the
  job. Retention deletes only completed jobs, each with its history and idempotency key.

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] active     echomq:{q}:active
    KEYS[3] completed  echomq:{q}:completed   zset id -> completion time (for retention)
    KEYS[4] idem       echomq:{q}:idem        released with the completed jobs retention deletes
    ARGV[1] prefix     echomq:{q}:          for the job's history
    ARGV[2] job id
    ARGV[3] token
    ARGV[4] the job's creation time (ms), as the claim returned it
    ARGV[5] keep at most this many completed jobs (>= 0)
    ARGV[6] keep completed jobs at most this many ms (>= 0)

  Output:
    {'OK', finished_at}
    {'NOT_FOUND'}                        no such job, or a job of another creation time
    {'STALE_TOKEN', state, attempts}
    {'NOT_ACTIVE', state, attempts}
]]
local active, completed, idem = KEYS[2], KEYS[3], KEYS[4]
local prefix, id, token, created = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local keep_count, max_age = tonumber(ARGV[5]), tonumber(ARGV[6])

-- #include now_ms
-- #include integer_text
-- #include log_event
-- #include fence
-- #include release_idempotency_keys
-- #include trim_finished
-- #include leave_active
-- #include notify_parent
-- #include complete_jobs

-- KEYS[1] is the job's own key, declared for the reader and the cluster router; complete_jobs
-- derives the same key from the prefix.
return complete_jobs(prefix, active, completed, idem, now_ms(), {id, token, created}, keep_count, max_age)[1]
