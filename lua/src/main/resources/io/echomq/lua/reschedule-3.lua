--[[
  reschedule: an operator moves a delayed job's due time: to now (promote: the job becomes
  pending at once), to a run-at time, or to a delay from now.

  Invariant: only a delayed job moves; it stays in exactly one structure (the delayed set,
  rescored, or its lane's pending set). The new due time is judged on the server clock (TIME):
  a delay counts from the server's now, and a run-at time that is not in the future makes the
  job pending now, as a due job's promotion by claim would.

  Input:
    KEYS[1] job       echomq:{q}:job:<id>
    KEYS[2] delayed   echomq:{q}:delayed   zset id -> due time (ms, server clock)
    KEYS[3] ring      echomq:{q}:lanes
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] job id
    ARGV[3] how: 'now' (promote), 'at' (ARGV[4] is a run-at time, ms since the epoch) or
            'in' (ARGV[4] is a delay in ms from the server's now, >= 0)
    ARGV[4] the time or the delay in ms ('' for 'now')

  Output:
    {'OK', state, due_at}     state 'pending' (due_at = the server's now) or 'delayed'
    {'NOT_FOUND'}
    {'REFUSED', state}        only a delayed job can be promoted or rescheduled
]]
local rcall = redis.call
local job, delayed, ring = KEYS[1], KEYS[2], KEYS[3]
local prefix, id, how, value = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])

-- #include now_ms
-- #include integer_text
-- #include push_pending
-- #include log_event

local fields = rcall('HMGET', job, 'state', 'lane', 'due_at')
local state, lane, was = fields[1], fields[2], fields[3]
if not state then
  return {'NOT_FOUND'}
end
if state ~= 'delayed' then
  return {'REFUSED', state}
end
local now = now_ms()
local due = now
if how == 'at' then
  due = value
elseif how == 'in' then
  due = now + value
end
if due <= now then
  rcall('ZREM', delayed, id)
  rcall('HDEL', job, 'due_at')
  push_pending(prefix, ring, lane, id)
  log_event(prefix, id, now, 'promoted', nil, nil, nil, 'by an operator (was due at ' .. tostring(was) .. ')')
  return {'OK', 'pending', now}
end
local due_text = integer_text(due)
rcall('ZADD', delayed, due_text, id)
rcall('HSET', job, 'due_at', due_text)
log_event(prefix, id, now, 'rescheduled', nil, nil, nil, 'due at ' .. due_text .. ' (was ' .. tostring(was) .. ')')
return {'OK', 'delayed', due}
