--[[
  schedule-put: creates a recurring job's schedule, or replaces its definition. A definition
  equal to the stored one (same fingerprint) changes nothing, so every server may upsert the
  schedules of its configuration at each start without disturbing the firing.

  Which source wins: the last change. A definition from configuration is applied when it
  differs from the one configuration last applied ('config_fingerprint'), whatever the stored
  definition is: a change made over the API since stands until the configuration itself
  changes (KEPT), and a server restarting with an unchanged configuration changes nothing. A
  definition from the API replaces the stored one whenever it differs.

  Invariant: a new or replaced definition starts from the server clock: its first slot is the
  first one after the anchor (TIME here), so a replaced definition never fires a slot of the
  time before it; the version grows, which refuses every firing planned on the old definition
  (schedule-fire compares it). The state (last slot and job, counts, firing history) and the
  paused flag carry over a replacement.

  A move to another shard (docs/SHARDING.md 3.3, its S3, after S2 removed it from the old shard
  with the same token) puts the definition here with what it carries (ARGV[15], ARGV[16]): a
  schedule it creates takes the old one's paused flag, and the fingerprint configuration last
  applied is the old one's (so configuration still yields to an API change made before the move);
  the KEPT rule is not applied, as the move was decided and the old copy is gone already. History
  and last slot do not carry over: the moved definition starts from the server clock as a
  replaced one does.

  Input:
    KEYS[1] schedule  echomq:{q}:schedule:<name>   hash: definition and state
    KEYS[2] index     echomq:{q}:schedules         zset name -> next slot (anchor while unplanned, +inf while paused)
    ARGV[1] name
    ARGV[2] fingerprint      the definition as one text (equal text = equal definition)
    ARGV[3] kind             'cron' or 'interval'
    ARGV[4] cron expression  ('' for an interval)
    ARGV[5] time zone        (ZoneId; '' for an interval)
    ARGV[6] interval in ms   ('' for cron)
    ARGV[7] payload
    ARGV[8] lane
    ARGV[9] max attempts of each job
    ARGV[10] misfire policy  'skip', 'run-once' or 'run-each'
    ARGV[11] misfire limit   slots run-each fires at most, per catch-up
    ARGV[12] misfire grace in ms: a slot later than this is missed
    ARGV[13] source          'config' or 'api'
    ARGV[14] token           on a sharded queue, the token the directory handed this put (schedule-home); '' or absent
                             on a queue of one shard. A put whose token is below the name's 'fence' (a later put or
                             remove of the name was applied here first) changes nothing; otherwise 'fence' becomes it
    ARGV[15] moved paused    a move's S3: '1' or '0', the paused flag schedule-remove's S2 answered; '' or absent otherwise
    ARGV[16] moved config fingerprint   a move's S3: the fingerprint configuration last applied, as S2 answered ('' none)

  Output:
    {'CREATED', version}
    {'REPLACED', version}    the old definition's firings planned elsewhere are refused from now
    {'UNCHANGED', version}   the stored definition is this one
    {'KEPT', version}        (configuration only) configuration applied this definition before; the
                             stored one, set over the API since, stands
    {'SUPERSEDED'}           a later put or remove of the name was applied here first; nothing changed
]]
local rcall = redis.call
local schedule, index = KEYS[1], KEYS[2]
local name, fingerprint, source = ARGV[1], ARGV[2], ARGV[13]

-- #include now_ms
-- #include integer_text

local token = tonumber(ARGV[14] or '')
local moved = ARGV[15] == '0' or ARGV[15] == '1'
if token then
  local fence = tonumber(rcall('HGET', schedule, 'fence') or '0')
  if fence > token then
    return {'SUPERSEDED'}
  end
  rcall('HSET', schedule, 'fence', ARGV[14])
  -- A remove left the fence alone with a time to live (schedule-remove): the schedule is back.
  rcall('PERSIST', schedule)
  rcall('HDEL', schedule, 'moved_paused', 'moved_removed')
end

local stored = rcall('HMGET', schedule, 'fingerprint', 'version', 'paused', 'config_fingerprint')
if not moved and source == 'config' and stored[4] == fingerprint and stored[1] ~= fingerprint then
  return {'KEPT', tonumber(stored[2])}
end
if source == 'config' then
  rcall('HSET', schedule, 'config_fingerprint', fingerprint)
elseif moved and (ARGV[16] or '') ~= '' then
  rcall('HSET', schedule, 'config_fingerprint', ARGV[16])
elseif moved then
  rcall('HDEL', schedule, 'config_fingerprint')
end
if moved and not stored[2] then
  -- A move creates the schedule here: it keeps the paused flag it had on the old shard.
  stored[3] = ARGV[15]
  if ARGV[15] == '1' then
    rcall('HSET', schedule, 'paused', '1')
  end
end
if stored[1] == fingerprint then
  return {'UNCHANGED', tonumber(stored[2])}
end
local now_text = integer_text(now_ms())
local version = rcall('HINCRBY', schedule, 'version', 1)
rcall('HSET', schedule, 'name', name, 'fingerprint', fingerprint, 'kind', ARGV[3], 'cron', ARGV[4], 'zone', ARGV[5],
  'interval_ms', ARGV[6], 'payload', ARGV[7], 'lane', ARGV[8], 'max_attempts', ARGV[9], 'misfire', ARGV[10],
  'misfire_limit', ARGV[11], 'misfire_grace_ms', ARGV[12], 'source', ARGV[13], 'anchor', now_text, 'defined_at', now_text)
rcall('HDEL', schedule, 'next_slot', 'resumed_at')
if stored[3] == '1' then
  rcall('ZADD', index, '+inf', name)
else
  rcall('ZADD', index, now_text, name)
end
if stored[2] then
  return {'REPLACED', version}
end
return {'CREATED', version}
