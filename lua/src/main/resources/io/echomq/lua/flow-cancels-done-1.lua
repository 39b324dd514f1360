--[[
  flow-cancels-done: deletes a flow parent's list of children to cancel once the flow relay has
  sent a cancel to each of them (see cancel_children).

  Invariant: deleted only as it was read (compare and delete); a crash before this leaves the
  list, and the relay sends the cancels again (a cancel of a finished job changes nothing).

  Input:
    KEYS[1] cancels   echomq:{q}:child-cancels
    ARGV[1] parent id
    ARGV[2] the list as the relay read it

  Output:
    1 deleted, 0 gone or changed
]]
local rcall = redis.call
if rcall('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
  return 0
end
rcall('HDEL', KEYS[1], ARGV[1])
return 1
