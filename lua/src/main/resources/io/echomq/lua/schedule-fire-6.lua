--[[
  schedule-fire: fires the due slots of one schedule as a plan computed by the caller says
  (the slot sequence is a pure function of the definition, the same on every server) and
  advances the schedule to its next slot. The compare-and-set on the definition's version and
  the stored next slot lets exactly one of any number of servers act on a slot: the others'
  calls, planned on the same state, find it moved and change nothing.

  Invariant: exactly one job per slot: each fired slot's job is enqueued (as enqueue does, with
  enqueue_one) under the slot's own idempotency key 'schedule:<name>:<slot ms>', so even a
  slot planned twice makes one job (the client refuses that prefix in every submission, so no
  submitted job can take a slot: RequestChecks.SCHEDULE_KEY_PREFIX); a slot is fired only once due on the server clock (TIME
  here, never the caller's: a plan made on a clock ahead of the server's is refused); a slot is
  skipped only when it came due while the schedule was paused or is later than the misfire
  grace, and no more late slots fire than the misfire policy allows. A refused or stale call
  changes nothing, so a resend after a lost reply is harmless.

  Input:
    KEYS[1] schedule  echomq:{q}:schedule:<name>   hash: definition and state
    KEYS[2] index     echomq:{q}:schedules         zset name -> next slot
    KEYS[3] seq       echomq:{q}:seq               job id counter
    KEYS[4] ring      echomq:{q}:lanes             lanes with pending work
    KEYS[5] delayed   echomq:{q}:delayed           (for enqueue_one; scheduled jobs are pending at once)
    KEYS[6] idem      echomq:{q}:idem              idempotency key -> job id
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] name
    ARGV[3] version the plan was made on
    ARGV[4] next slot the plan starts from, ms ('' = not yet planned: the first slot after the anchor)
    ARGV[5] the server time the plan was made at, ms (as schedules-due answered it)
    ARGV[6] next slot after this call, ms
    ARGV[7] slots skipped by this call (came due while paused, or missed beyond the grace)
    ARGV[8] the latest skipped slot, ms ('' when none is skipped)
    ARGV[9] trace context of the firing ('' = none): stored as each fired job's 'trace'
    ARGV[10] id stride N, on shard s of a queue of N shards ('' on a queue of one shard)
    ARGV[11] id offset s, with ARGV[10] ('' on a queue of one shard): the slots' jobs are minted
             n × N + s as enqueue's are (includes/mint_id, docs/SHARDING.md 1)
    ARGV[12] the first slot to fire, ms; ARGV[13], ... the others, ascending (none: just advance)

  Output:
    {'FIRED', next_slot, skipped, slot1, job1, slot2, job2, ...}   job is the slot's job id
    {'STALE', version, next_slot}     another call moved the schedule first, it was redefined, or it was
                                      resumed after the view the plan was made on (a planned slot came
                                      due while it was paused)
    {'PAUSED'}
    {'NOT_DUE', now}                  the plan was made at a time the server clock has not reached
    {'REFUSED', reason}               the plan breaks the rules above; nothing changed
    {'NOT_FOUND'}
]]
local rcall = redis.call
local schedule, index, seq, ring, delayed, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix, name, version, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local plan_now, next_slot = tonumber(ARGV[5]), tonumber(ARGV[6])
local skipped, latest_skipped = tonumber(ARGV[7]), tonumber(ARGV[8])
local trace = ARGV[9]

-- #include now_ms
-- #include integer_text
-- #include mint_id
-- #include push_pending
-- #include log_event
-- #include key_home
-- #include enqueue_one
local ids = id_layout(ARGV[10], ARGV[11])
local recorded_shards = shards_unknown_to_client(prefix, ids)
if recorded_shards then
  return {'REFUSED', 'the queue is laid out over ' .. recorded_shards .. ' shards, and this engine fires its schedules as on one '
    .. 'shard: nothing was fired (give it the queue\'s echomq.queues.<q>.shards)'}
end

local f = rcall('HMGET', schedule, 'version', 'next_slot', 'paused', 'anchor', 'resumed_at', 'payload', 'lane',
  'max_attempts', 'misfire', 'misfire_limit', 'misfire_grace_ms')
if not f[1] then
  return {'NOT_FOUND'}
end
if f[1] ~= version or (f[2] or '') ~= expected then
  return {'STALE', tonumber(f[1]), f[2] or ''}
end
if f[3] == '1' then
  return {'PAUSED'}
end
local now = now_ms()
if not plan_now or plan_now > now then
  return {'NOT_DUE', now}
end

-- The plan, checked against the rules before anything changes.
local floor = tonumber(expected ~= '' and expected or f[4])
local resumed_at = tonumber(f[5] or '')
local late_line = plan_now - tonumber(f[11])
local slots, late_fired, last = {}, 0, nil
for k = 12, #ARGV do
  local slot = tonumber(ARGV[k])
  if not slot or slot ~= math.floor(slot) then
    return {'REFUSED', 'slot ' .. ARGV[k] .. ' is not a time in ms'}
  end
  if slot > plan_now then
    return {'REFUSED', 'slot ' .. ARGV[k] .. ' is not due at ' .. ARGV[5]}
  end
  if slot < floor or (expected == '' and slot == floor) or (last and slot <= last) then
    return {'REFUSED', 'slot ' .. ARGV[k] .. ' is before the next slot or out of order'}
  end
  if resumed_at and slot < resumed_at then
    -- Only a plan made on a view from before the last pause and resume holds such a slot (the
    -- version and next slot survive a pause): stale, like any plan on an outdated view.
    return {'STALE', tonumber(f[1]), f[2] or ''}
  end
  if slot <= late_line then
    late_fired = late_fired + 1
  end
  slots[#slots + 1] = ARGV[k]
  last = slot
end
local policy, limit = f[9], tonumber(f[10])
local allowed = (policy == 'run-each' and limit) or (policy == 'run-once' and 1) or 0
if late_fired > allowed then
  return {'REFUSED', late_fired .. ' missed slots fired, the misfire policy ' .. policy .. ' allows ' .. allowed}
end
if not next_slot or next_slot ~= math.floor(next_slot) or next_slot <= floor or (last and next_slot <= last) then
  return {'REFUSED', 'the next slot ' .. ARGV[6] .. ' is not after the slots handled'}
end
if late_fired > 0 and next_slot <= late_line then
  return {'REFUSED', 'missed slots fired while later missed slots are left for another call'}
end
if not skipped or skipped < 0 then
  return {'REFUSED', 'the skipped count ' .. ARGV[7] .. ' is not a count'}
end
if skipped > 0 then
  if not latest_skipped or latest_skipped < floor or latest_skipped >= next_slot then
    return {'REFUSED', 'the latest skipped slot ' .. ARGV[8] .. ' is not between the slots handled'}
  end
  if not (resumed_at and latest_skipped < resumed_at) and latest_skipped > late_line then
    return {'REFUSED', 'slot ' .. ARGV[8] .. ' would be skipped though it is not later than the misfire grace'}
  end
end

-- Fire, each slot's job under its own idempotency key, then advance.
local now_text = integer_text(now)
local history = schedule .. ':log'
local out = {'FIRED', next_slot, skipped}
local sep = string.char(31)
if skipped > 0 then
  rcall('HINCRBY', schedule, 'skipped', skipped)
  rcall('RPUSH', history, now_text .. sep .. 'skipped' .. sep .. ARGV[8] .. sep .. '' .. sep .. skipped)
end
for _, slot in ipairs(slots) do
  local made = enqueue_one(prefix, seq, ring, delayed, idem, now_text, f[6], tonumber(f[8]), 0, f[7],
    'schedule:' .. name .. ':' .. slot, nil, PRIORITY_DEFAULT, nil, nil, nil, trace, ids)
  rcall('RPUSH', history, now_text .. sep .. (made[1] == 'CREATED' and 'fired' or 'duplicate') .. sep .. slot .. sep
    .. made[2] .. sep .. '')
  rcall('HSET', schedule, 'last_slot', slot, 'last_job', made[2], 'last_fired_at', now_text)
  out[#out + 1] = slot
  out[#out + 1] = made[2]
end
if #slots > 0 then
  rcall('HINCRBY', schedule, 'fired', #slots)
end
if rcall('LLEN', history) > 64 then
  rcall('LTRIM', history, -64, -1)
end
local next_text = integer_text(next_slot)
rcall('HSET', schedule, 'next_slot', next_text)
rcall('ZADD', index, next_text, name)
return out
