--[[
  flow-add: stores one job of a flow. With children (n > 0) it is a parent: it waits
  (waiting-children) with its children's specs and the count it expects, and no worker claims it
  until its children settled. Without children it is a plain pending job. Either may itself be a
  child (it then names its parent and its failure policy, copied into its settlement notice).

  Invariant: a parent is made with every child's spec in the same script (F4: whoever makes the
  children, the submitter or the repair, makes them from these specs). With an idempotency key
  (a child's is derived from its parent and its index) the key maps to at most one job: a second
  flow-add with the same key changes nothing and answers the first job.

  Input:
    KEYS[1] seq       echomq:{q}:seq
    KEYS[2] ring      echomq:{q}:lanes
    KEYS[3] delayed   echomq:{q}:delayed
    KEYS[4] idem      echomq:{q}:idem
    KEYS[5] waiting   echomq:{q}:waiting   zset parent id -> creation time (ms, server clock)
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] payload
    ARGV[3] max attempts (>= 1)
    ARGV[4] lane
    ARGV[5] priority, 0 to 9
    ARGV[6] idempotency key ('' = none)
    ARGV[7] parent: '<queue> <id> <created ms> <index>' ('' = none: the root of a flow)
    ARGV[8] failure policy towards the parent: fail-parent, run-parent or drop ('' without a parent)
    ARGV[9] n, the number of children (0 = a plain job)
    ARGV[10..9+n] each child's spec, stored as spec:<i> in echomq:{q}:job:<id>:flow
    ARGV[10+n], ARGV[11+n] id stride N and offset s on shard s of a queue of N shards (absent on a
                      queue of one shard): the job's id is minted n × N + s, as enqueue's (includes/mint_id)
    ARGV[12+n]        a root's idempotency key's claim on that shard (absent or '' = 'own'; includes/key_home):
                      'own' when this shard owns the key, '<owner>:<token>' when it is the key's home by a
                      reservation (docs/SHARDING.md 3.1), as enqueue's ARGV[15]

  Output:
    {'CREATED', id, state, created ms}     state is 'waiting-children' or 'pending'
    {'DUPLICATE', id, state, created ms}   the key was seen: the first job and its current state
    {'HOME', shard, 'idem'}                 a parent that is the root of its flow, on a shard of a sharded queue that owns its
                                            key, whose key's home is recorded on another shard (docs/SHARDING.md, 3.1):
                                            nothing was made
    {'FENCED', 'idem', ''}                  such a root by a claim whose token was fenced (the key's home moved): nothing was made
    {'SHARDED', N}                         the queue is laid out over N shards and this client sent
                                           no layout (includes/mint_id): nothing was made
]]
local rcall = redis.call
local seq, ring, delayed, idem, waiting = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, payload, max_attempts, lane = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local priority, idem_key, parent, policy, n = tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9])

-- #include now_ms
-- #include integer_text
-- #include mint_id
-- #include push_pending
-- #include log_event
-- #include key_home
-- #include enqueue_one

local ids = id_layout(ARGV[10 + n], ARGV[11 + n])
local recorded_shards = shards_unknown_to_client(prefix, ids)
if recorded_shards then
  return {'SHARDED', recorded_shards}
end

local function answer(reply)
  return {reply[1], reply[2], reply[3], rcall('HGET', prefix .. 'job:' .. reply[2], 'created_at') or '0'}
end

local function name_parent(job)
  if parent ~= '' then
    rcall('HSET', job, 'parent', parent, 'parent_policy', policy)
  end
end

local now_text = integer_text(now_ms())
if n == 0 then
  local reply = enqueue_one(prefix, seq, ring, delayed, idem, now_text, payload, max_attempts, 0, lane, idem_key, nil,
    priority, '', 0, '', nil, ids)
  if reply[1] == 'CREATED' then
    name_parent(prefix .. 'job:' .. reply[2])
  end
  return answer(reply)
end

-- A root's own key on a shard of a sharded queue passes the key-home check as enqueue's does
-- (docs/SHARDING.md 3.1): on its owner (claim 'own', the fast path) a home recorded on another shard
-- answers HOME; on its home by a reservation a fenced token answers FENCED; either way nothing is
-- made here. A child's key has a structural home (3.2) and skips the check; a root's key the engine
-- minted comes with no claim ('own'): its one row sends it, always to this shard (3.2).
if ids and parent == '' then
  local home = key_home_check(prefix, 'idem', idem_key, ARGV[12 + n], ids.offset)
  if home then
    return home
  end
end

if idem_key ~= '' then
  local existing = rcall('HGET', idem, idem_key)
  if existing then
    local state = rcall('HGET', prefix .. 'job:' .. existing, 'state')
    if state then
      return answer({'DUPLICATE', existing, state})
    end
    rcall('HDEL', idem, idem_key)
  end
end

local id = mint_id(seq, ids)
local job = prefix .. 'job:' .. id
local budget = integer_text(max_attempts)
rcall('HSET', job, 'id', id, 'payload', payload, 'lane', lane, 'attempts', '0', 'max_attempts', budget,
  'retry_budget', budget, 'created_at', now_text, 'state', 'waiting-children', 'flow_expected', integer_text(n),
  'flow_created', '0', 'flow_settled', '0')
if idem_key ~= '' then
  rcall('HSET', job, 'idem', idem_key)
  rcall('HSET', idem, idem_key, id)
end
if priority ~= PRIORITY_DEFAULT then
  rcall('HSET', job, 'priority', integer_text(priority))
end
name_parent(job)
local specs = {}
for i = 0, n - 1 do
  specs[#specs + 1] = 'spec:' .. i
  specs[#specs + 1] = ARGV[10 + i]
end
rcall('HSET', job .. ':flow', unpack(specs))
rcall('ZADD', waiting, now_text, id)
log_event(prefix, id, now_text, 'enqueued', '0', nil, nil, 'waiting for ' .. n .. ' children; lane ' .. lane)
return {'CREATED', id, 'waiting-children', now_text}
