--[[
  complete: the acknowledgement. Moves a job the caller holds from active to completed.

  Invariant: fenced by the token, so a stale worker (a zombie whose lease expired and was
  claimed again) cannot settle the job; the rejection changes nothing. A lease that expired
  but was not yet reaped may still be completed by its holder: nobody else holds the job.

  Input:
    KEYS[1] job        echomq:{q}:job:<id>
    KEYS[2] active     echomq:{q}:active
    KEYS[3] completed  echomq:{q}:completed   zset id -> completion time (for retention)
    ARGV[1] prefix     echomq:{q}:          for the job's history
    ARGV[2] job id
    ARGV[3] token

  Output:
    {'OK', finished_at}
    {'NOT_FOUND'}
    {'STALE_TOKEN', state, attempts}
    {'NOT_ACTIVE', state, attempts}
]]
local active, completed = KEYS[2], KEYS[3]
local prefix, id, token = ARGV[1], ARGV[2], ARGV[3]

-- #include now_ms
-- #include integer_text
-- #include log_event
-- #include fence
-- #include complete_jobs

-- KEYS[1] is the job's own key, declared for the reader and the cluster router; complete_jobs
-- derives the same key from the prefix.
return complete_jobs(prefix, active, completed, now_ms(), {id, token})[1]
