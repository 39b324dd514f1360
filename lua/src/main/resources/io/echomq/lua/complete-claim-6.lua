--[[
  complete-claim: the worker's one round trip. Acknowledges the jobs a worker finished, then
  leases it up to N new ones: a batched complete followed by a claim, atomically.

  Invariant: each acknowledgement is fenced by its token and its job's creation time exactly
  as complete is (a stale one is refused and changes nothing, the others still settle), and
  retention keeps pace as in complete (at most two completed jobs deleted per job settled);
  the claim is exactly claim's: leases on the server clock, tokens minted here and only here.
  Either part may be empty: no acknowledgements is a plain claim, a claim of 0 is a batched
  complete.

  Input:
    KEYS[1] active     echomq:{q}:active      zset id -> lease deadline
    KEYS[2] completed  echomq:{q}:completed   zset id -> completion time
    KEYS[3] ring       echomq:{q}:lanes
    KEYS[4] delayed    echomq:{q}:delayed
    KEYS[5] meta       echomq:{q}:meta        field 'paused' = '1' stops claims
    KEYS[6] idem       echomq:{q}:idem        released with the completed jobs retention deletes
    ARGV[1] prefix     echomq:{q}:
    ARGV[2] lease length in ms (> 0)
    ARGV[3] max jobs to claim (>= 0)
    ARGV[4] worker id
    ARGV[5] max delayed jobs to promote (>= 0)
    ARGV[6] keep at most this many completed jobs (>= 0)
    ARGV[7] keep completed jobs at most this many ms (>= 0)
    ARGV[8] number of acknowledgements n (>= 0)
    ARGV[9] the caller's idle poll in ms when it is idle (its claims keep finding nothing), else 0:
            an idle caller whose claim finds nothing books the queue's next idle turn (take_idle_turn);
            a sharded queue's client sends it to shard 0 only, last in a claim over the shards and
            only when every other shard came up empty (docs/SHARDING.md, 5)
    ARGV[10] and on  three values per acknowledgement: job id, token, the job's creation time (ms)
    ARGV[10 + 3n]   a sharded queue's client: the shard count N it claims under; the claim is
                    refused unless the shard's recorded 'id_stride' (absent = 1) is N, and the
                    lanes with work after the claim are answered too, by which the client splits
                    its next claims over the shards (docs/SHARDING.md, 5 and 10). '' or absent:
                    neither (a queue of one shard never pays for them)

  Output:
    {{settlement1, settlement2, ...}, claim, idle wait}
    settlement: {'OK', finished_at} | {'NOT_FOUND'} | {'STALE_TOKEN', state, attempts}
                | {'NOT_ACTIVE', state, attempts}, in the order of the acknowledgements
                (NOT_FOUND also for a job of another creation time)
    claim:      {} or {deadline, id1, payload1, token1, lane1, created1, idem1, ...} as claim returns it
    idle wait:  ms until the caller's idle turn; 0 when it booked none (not idle, or the claim found jobs)
    {{settlements...}, claim, idle wait, lanes}  when the shard count is given: lanes is the ring's
                length after the claim (lanes with pending work that are not held)
    {'SHARD_COUNT', recorded}  the shard records another shard count than the client's N: nothing
                was acknowledged nor claimed (an engine left running over a changed layout stops)
]]
local active, completed, ring, delayed, meta, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix = ARGV[1]
local lease_ms, max_jobs = tonumber(ARGV[2]), tonumber(ARGV[3])
local worker, promote_limit = ARGV[4], tonumber(ARGV[5])
local keep_count, max_age = tonumber(ARGV[6]), tonumber(ARGV[7])
local acks, idle_poll_ms = tonumber(ARGV[8]), tonumber(ARGV[9])

-- #include now_ms
-- #include integer_text
-- #include push_pending
-- #include log_event
-- #include fence
-- #include release_idempotency_keys
-- #include trim_finished
-- #include leave_active
-- #include notify_parent
-- #include complete_jobs
-- #include limits
-- #include claim_jobs
-- #include take_idle_turn

local shards = ARGV[10 + acks * 3]
if shards and shards ~= '' then
  local recorded = redis.call('HGET', meta, 'id_stride') or '1'
  if recorded ~= shards then
    return {'SHARD_COUNT', recorded}
  end
end

local now = now_ms()
local settlements = complete_jobs(prefix, active, completed, idem, now, {unpack(ARGV, 10, 9 + acks * 3)}, keep_count, max_age)
local claimed = claim_jobs(prefix, ring, delayed, active, meta, now, lease_ms, max_jobs, worker, promote_limit)
local idle_wait = 0
if idle_poll_ms > 0 and max_jobs > 0 and #claimed == 0 then
  idle_wait = take_idle_turn(prefix, now, idle_poll_ms)
end
if shards and shards ~= '' then
  return {settlements, claimed, idle_wait, redis.call('LLEN', ring)}
end
return {settlements, claimed, idle_wait}
