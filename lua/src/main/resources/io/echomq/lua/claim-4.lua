--[[
  claim: leases up to N pending jobs to one worker, on the server clock, and mints each
  job's fencing token.

  First promotes delayed jobs whose due time has passed. Then, unless the queue is paused,
  takes jobs round-robin across the lanes that have pending work (one busy lane cannot
  starve the others), the oldest job of each lane first (mint order).

  Invariant: a claimed job moves from its lane's pending set to the active set, scored by
  its lease deadline = now + lease_ms with now from TIME. `attempts` is incremented here and
  only here: it is the fencing token that extend, complete and retry must present.

  Input:
    KEYS[1] ring      echomq:{q}:lanes     lanes with pending work, rotated as they are served
    KEYS[2] delayed   echomq:{q}:delayed   zset id -> due time
    KEYS[3] active    echomq:{q}:active    zset id -> lease deadline
    KEYS[4] meta      echomq:{q}:meta      hash; field 'paused' = '1' stops claims
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] lease length in ms (> 0)
    ARGV[3] max jobs to claim (>= 1)
    ARGV[4] worker id (recorded on the job, for operators)
    ARGV[5] max delayed jobs to promote in this call (>= 0)

  Output:
    {}                                                              nothing claimable (or paused)
    {deadline, id1, payload1, token1, lane1, created1, idem1, ...}  deadline is the lease end (ms,
                                                                    server clock); created is the
                                                                    job's creation time (ms), part of
                                                                    its effect key; idem is its
                                                                    idempotency key ('' = none)
]]
local ring, delayed, active, meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
local lease_ms, max_jobs = tonumber(ARGV[2]), tonumber(ARGV[3])
local worker, promote_limit = ARGV[4], tonumber(ARGV[5])

-- #include now_ms
-- #include integer_text
-- #include push_pending
-- #include log_event
-- #include limits
-- #include claim_jobs

return claim_jobs(prefix, ring, delayed, active, meta, now_ms(), lease_ms, max_jobs, worker, promote_limit)
