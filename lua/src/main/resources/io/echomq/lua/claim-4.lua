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
    {}                                              nothing claimable (or paused)
    {deadline, id1, payload1, token1, lane1, ...}   deadline is the lease end (ms, server clock)
]]
local rcall = redis.call
local ring, delayed, active, meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
local lease_ms, max_jobs = tonumber(ARGV[2]), tonumber(ARGV[3])
local worker, promote_limit = ARGV[4], tonumber(ARGV[5])

-- #include now_ms
-- #include push_pending
-- #include log_event

local now = now_ms()

if promote_limit > 0 then
  local due = rcall('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, promote_limit)
  for _, id in ipairs(due) do
    local job = prefix .. 'job:' .. id
    rcall('ZREM', delayed, id)
    rcall('HDEL', job, 'due_at')
    push_pending(prefix, ring, rcall('HGET', job, 'lane'), id)
    log_event(prefix, id, now, 'promoted', nil, nil, nil, 'due')
  end
end

if rcall('HGET', meta, 'paused') == '1' then
  return {}
end

local deadline = now + lease_ms
local out = {deadline}
for _ = 1, max_jobs do
  local lane = rcall('LMOVE', ring, ring, 'LEFT', 'RIGHT')
  if not lane then
    break
  end
  local pending = prefix .. 'pending:' .. lane
  local popped = rcall('ZPOPMIN', pending)
  if rcall('ZCARD', pending) == 0 then
    rcall('LREM', ring, -1, lane)
  end
  if #popped > 0 then
    local id = popped[1]
    local job = prefix .. 'job:' .. id
    local token = rcall('HINCRBY', job, 'attempts', 1)
    rcall('HSET', job, 'state', 'active', 'lease_until', deadline, 'claimed_at', now, 'worker', worker)
    rcall('ZADD', active, deadline, id)
    log_event(prefix, id, now, 'claimed', token, worker, deadline, '')
    local payload = rcall('HGET', job, 'payload')
    out[#out + 1] = id
    out[#out + 1] = payload
    out[#out + 1] = token
    out[#out + 1] = lane
  end
end
if #out == 1 then
  return {}
end
return out
