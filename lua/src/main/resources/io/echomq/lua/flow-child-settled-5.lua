--[[
  flow-child-settled: applies one child's settlement notice to its parent, on the parent's slot
  (the child's settlement ran on the child's). The flow relay sends it for every notice it finds
  and acknowledges the notice (flow-notice-ack) only after this answered, so a crash in between
  sends it again.

  Invariant: the child's mark settled:<i> is added at most once (HSETNX), and only a new mark
  moves the count (F2): a notice sent again changes nothing. The parent leaves waiting-children
  only here (or by an operator's cancel), and only when every child's mark is in its set (F1), or
  when a child with policy fail-parent ended dead or cancelled: the parent is then dead, and its
  unsettled children are cancelled (cancel_children). A mark for a parent that no longer waits
  is kept and changes nothing else.

  Policies for a child that ended dead or cancelled: fail-parent (above), run-parent (its mark
  counts; the parent runs when all settled and reads the outcome), drop (its mark
  'dropped:<outcome>' counts, and the parent's handler is not shown the child).

  Input:
    KEYS[1] job       echomq:{q}:job:<parent id>
    KEYS[2] flow      echomq:{q}:job:<parent id>:flow
    KEYS[3] waiting   echomq:{q}:waiting
    KEYS[4] dead      echomq:{q}:dead
    KEYS[5] ring      echomq:{q}:lanes
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] parent id
    ARGV[3] the parent's creation time (ms)
    ARGV[4] child index i
    ARGV[5] the child's failure policy: fail-parent, run-parent or drop
    ARGV[6] the child's outcome: completed, dead or cancelled
    ARGV[7] the child, '<queue> <id> <created ms>': marked made too if the submitter has not yet
            marked it (it settled first), so the repair does not look for it

  Output:
    {'MARKED', settled, expected}   counted; the parent still waits
    {'RELEASED'}                    the last mark: the parent is pending
    {'FAILED'}                      the parent is dead (fail-parent)
    {'ALREADY', state}              the mark was there: nothing changed
    {'LATE', state}                 marked, but the parent no longer waits (failed or cancelled)
    {'NOT_FOUND'}                   no such parent (deleted), or one of another creation time
]]
local rcall = redis.call
local job, flow, waiting, dead, ring = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, id, created, index, policy, outcome, child = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]

-- #include now_ms
-- #include integer_text
-- #include push_pending
-- #include log_event
-- #include notify_parent
-- #include cancel_children

local f = rcall('HMGET', job, 'state', 'created_at', 'flow_expected', 'lane')
local state = f[1]
if not state or f[2] ~= created then
  return {'NOT_FOUND'}
end
local failed = outcome ~= 'completed'
local mark = outcome
if failed and policy == 'drop' then
  mark = 'dropped:' .. outcome
end
if rcall('HSETNX', flow, 'settled:' .. index, mark) == 0 then
  return {'ALREADY', state}
end
if rcall('HSETNX', flow, 'child:' .. index, child) == 1 then
  rcall('HINCRBY', job, 'flow_created', 1)
end
if state ~= 'waiting-children' then
  return {'LATE', state}
end
local settled = rcall('HINCRBY', job, 'flow_settled', 1)
local now = integer_text(now_ms())
local what = 'child ' .. index .. ' (' .. child .. ') ' .. outcome
if failed and policy == 'fail-parent' then
  rcall('ZREM', waiting, id)
  rcall('ZADD', dead, now, id)
  rcall('HSET', job, 'state', 'dead', 'finished_at', now, 'last_error', what)
  log_event(prefix, id, now, 'dead', '0', nil, nil, what .. ': the flow fails (policy fail-parent)')
  cancel_children(prefix, id)
  notify_parent(prefix, job, id, 'dead')
  return {'FAILED'}
end
if settled < tonumber(f[3]) then
  log_event(prefix, id, now, 'child-settled', '0', nil, nil, what .. '; ' .. settled .. ' of ' .. f[3] .. ' settled')
  return {'MARKED', settled, tonumber(f[3])}
end
rcall('ZREM', waiting, id)
push_pending(prefix, ring, f[4], id)
log_event(prefix, id, now, 'released', '0', nil, nil, what .. '; all ' .. f[3] .. ' children settled')
return {'RELEASED'}
