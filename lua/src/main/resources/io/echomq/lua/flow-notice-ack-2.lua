--[[
  flow-notice-ack: deletes a child's settlement notice once its parent has applied it
  (flow-child-settled answered), and lets retention have the child again.

  Invariant: a notice is deleted only as it was read (compare and delete): a later settlement of
  the same child (requeued and settled again) wrote a new notice, which stays to be applied (F3).

  Input:
    KEYS[1] notices   echomq:{q}:notices
    KEYS[2] job       echomq:{q}:job:<child id>
    ARGV[1] child id
    ARGV[2] the notice as the relay read it

  Output:
    1   deleted
    0   the notice is gone or changed: nothing deleted
]]
local rcall = redis.call
local notices, job = KEYS[1], KEYS[2]
local id, notice = ARGV[1], ARGV[2]

if rcall('HGET', notices, id) ~= notice then
  return 0
end
rcall('HDEL', notices, id)
rcall('HDEL', job, 'notice')
return 1
