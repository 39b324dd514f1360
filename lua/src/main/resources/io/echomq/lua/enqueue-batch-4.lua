--[[
  enqueue-batch: stores several new jobs in one atomic step: all of them or none.

  Invariant: as for enqueue, for each job, as if the jobs were submitted one after another (a
  later job with the dedupe key of an earlier one finds the window that one opened). Nothing is checked here that could fail half-way:
  the caller validated every job first, so the batch is applied whole (a server out of
  memory refuses the script before its first write).

  Input:
    KEYS[1] seq       echomq:{q}:seq
    KEYS[2] ring      echomq:{q}:lanes
    KEYS[3] delayed   echomq:{q}:delayed
    KEYS[4] idem      echomq:{q}:idem
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] number of jobs n (>= 1)
    ARGV[3] and on    ten values per job, in order: payload, max attempts, delay in ms,
                      lane, idempotency key ('' = none), run at in ms since the epoch on the
                      server clock ('' = none; a time not in the future means pending now),
                      priority (0 lowest to 9 highest; 4 is the default), dedupe key ('' = none),
                      dedupe window in ms, dedupe mode ('debounce' or 'throttle'), as for enqueue
    ARGV[3 + 10n]     trace context of the batch's creation ('' or absent = none): stored as
                      each new job's 'trace'
    ARGV[4 + 10n], ARGV[5 + 10n]  id stride N and offset s on shard s of N shards (absent on a
                      queue of one shard), as for enqueue

  Output:
    {status1, id1, state1, status2, id2, state2, ...}   status 'CREATED', 'DUPLICATE',
    'REPLACED' or 'THROTTLED', as enqueue answers (a later job with the idempotency key of an
    earlier one in the batch is a DUPLICATE of it); on a shard, also 'HOME' (shard, kind) for a
    job whose key owned here has its home on another shard: that job was not made, the others were
    (every key of a batch on a shard is claimed 'own': its client sends jobs whose keys another
    shard owns through the key-home protocol, docs/SHARDING.md 3.1)
    {'SHARDED', N}   the queue is laid out over N shards and this client sent no layout
                     (includes/mint_id): no job of the batch was made
]]
local rcall = redis.call
local seq, ring, delayed, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, count = ARGV[1], tonumber(ARGV[2])
local trace = ARGV[3 + count * 10]

-- #include now_ms
-- #include integer_text
-- #include mint_id
-- #include push_pending
-- #include log_event
-- #include key_home
-- #include enqueue_one

local ids = id_layout(ARGV[4 + count * 10], ARGV[5 + count * 10])
local recorded_shards = shards_unknown_to_client(prefix, ids)
if recorded_shards then
  return {'SHARDED', recorded_shards}
end
local claims = ids and {}
local now_text = integer_text(now_ms())
local out = {}
for i = 0, count - 1 do
  local base = 3 + i * 10
  local result = enqueue_one(prefix, seq, ring, delayed, idem, now_text, ARGV[base], tonumber(ARGV[base + 1]),
    tonumber(ARGV[base + 2]), ARGV[base + 3], ARGV[base + 4], tonumber(ARGV[base + 5]), tonumber(ARGV[base + 6]),
    ARGV[base + 7], tonumber(ARGV[base + 8]), ARGV[base + 9], trace, ids, claims)
  out[#out + 1] = result[1]
  out[#out + 1] = result[2]
  out[#out + 1] = result[3]
end
return out
