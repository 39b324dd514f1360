--[[
  enqueue: mints a job id and stores a new job as pending (or delayed when a delay or a run-at
  time in the future is given).

  Invariant: an acknowledged enqueue exists in exactly one structure: its lane's pending set
  or the delayed set. With an idempotency key, the key maps to at most one job: a second
  enqueue with the same key changes nothing and answers the first job. With a dedupe key
  (judged after the idempotency key), windows are judged on the server clock (TIME): a
  throttled key makes at most one job per window; a debounced key has at most one job waiting
  out its window (delayed, never claimed), which a submission within the window replaces.

  Input:
    KEYS[1] seq       echomq:{q}:seq       job id counter (ids are minted in order)
    KEYS[2] ring      echomq:{q}:lanes     lanes that have pending work, in round-robin order
    KEYS[3] delayed   echomq:{q}:delayed   zset id -> due time (ms, server clock)
    KEYS[4] idem      echomq:{q}:idem      hash idempotency key -> job id
    ARGV[1] prefix    echomq:{q}:          for the job hash and the lane's pending set
    ARGV[2] payload   the job's payload (opaque to the queue)
    ARGV[3] max attempts (>= 1)
    ARGV[4] delay in ms (0 = pending now)
    ARGV[5] lane
    ARGV[6] idempotency key ('' = none)
    ARGV[7] run at: ms since the epoch, judged on the server clock ('' = none; not together
            with a delay); a time not in the future means pending now
    ARGV[8] priority, 0 (lowest) to 9 (highest); 4 is the default
    ARGV[9] dedupe key ('' = none): echomq:{q}:dedupe:<key> holds '<job id>:<window end ms>'
    ARGV[10] dedupe window in ms (> 0; ignored without a dedupe key)
    ARGV[11] dedupe mode: 'debounce' (the last submission wins: its job is delayed by the
            window, and replaced while it waits) or 'throttle' (the first wins); ignored without a key
    ARGV[12] trace context of the creation ('' or absent = none): stored as the new job's 'trace'
    ARGV[13] id stride N, on shard s of a queue of N shards (absent on a queue of one shard)
    ARGV[14] id offset s, with ARGV[13]: the new id is n × N + s (includes/mint_id, docs/SHARDING.md 1)
    ARGV[15] the idempotency key's claim on a shard (absent or '' = 'own'; includes/key_home): 'own'
            when this shard owns the key, '<owner>:<token>' when it is the key's home by a reservation
    ARGV[16] the dedupe key's claim, as ARGV[15]

  Output:
    {'CREATED', id, state}     state is 'pending' or 'delayed'
    {'DUPLICATE', id, state}   the key was seen: the first job's id and its current state
    {'REPLACED', id, 'delayed'}  debounce: the window's waiting job took this submission's payload,
                               lane and max attempts, and is now due at now + window
    {'THROTTLED', id, state}   throttle: the window's job (state '' when it was deleted since);
                               nothing was made
    {'HOME', shard, kind}      sharded only: the key (kind 'idem' or 'dedupe') owned here has its
                               home on another shard; nothing was made (docs/SHARDING.md, 3.1)
    {'FENCED', kind, ''}       sharded only: the claim's token was fenced (the key's home moved); nothing was made
    {'SHARDED', N}             the queue is laid out over N shards and this client sent no layout
                               (includes/mint_id): nothing was made
]]
local rcall = redis.call
local seq, ring, delayed, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, payload = ARGV[1], ARGV[2]
local max_attempts, delay_ms = tonumber(ARGV[3]), tonumber(ARGV[4])
local lane, idem_key, run_at, priority = ARGV[5], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
local dedupe_key, window_ms, mode = ARGV[9], tonumber(ARGV[10]), ARGV[11]
local trace = ARGV[12]

-- #include now_ms
-- #include integer_text
-- #include mint_id
-- #include push_pending
-- #include log_event
-- #include key_home
-- #include enqueue_one

local ids = id_layout(ARGV[13], ARGV[14])
local recorded_shards = shards_unknown_to_client(prefix, ids)
if recorded_shards then
  return {'SHARDED', recorded_shards}
end
return enqueue_one(prefix, seq, ring, delayed, idem, integer_text(now_ms()), payload, max_attempts, delay_ms, lane, idem_key, run_at,
  priority, dedupe_key, window_ms, mode, trace, ids, ids and {idem = ARGV[15], dedupe = ARGV[16]})
