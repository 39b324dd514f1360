--[[
  flow-child-created: records on a flow parent that its child i exists, once the child's own
  flow-add answered (made or found by its derived idempotency key).

  Invariant: child:<i> is written at most once (HSETNX), so flow_created counts each child once
  however often the submitter or the repair resends it (F4). A parent that no longer waits
  (failed or cancelled meanwhile) is answered with its state: the caller cancels the child it
  just made, which the parent's cancel could not have named.

  Input:
    KEYS[1] job     echomq:{q}:job:<parent id>
    KEYS[2] flow    echomq:{q}:job:<parent id>:flow
    ARGV[1] the parent's creation time (ms)
    ARGV[2] child index i (0-based)
    ARGV[3] the child: '<queue> <id> <created ms>'

  Output:
    {'OK', state}     state: the parent's state now
    {'NOT_FOUND'}     no such parent, or one of another creation time
]]
local rcall = redis.call
local job, flow = KEYS[1], KEYS[2]
local created, index, child = ARGV[1], ARGV[2], ARGV[3]

local f = rcall('HMGET', job, 'state', 'created_at')
if not f[1] or f[2] ~= created then
  return {'NOT_FOUND'}
end
if rcall('HSETNX', flow, 'child:' .. index, child) == 1 then
  rcall('HINCRBY', job, 'flow_created', 1)
end
return {'OK', f[1]}
