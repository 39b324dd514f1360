-- The way out of the active set for jobs of one lane (completed, retried, reaped, stopped):
-- they stop counting against the lane's cap (see limits), and a held lane is looked at by the
-- next claim. ZADD XX touches only a lane that is held, and creates nothing.
local function leave_active(prefix, lane, ids)
  redis.call('SREM', prefix .. 'active:' .. lane, unpack(ids))
  redis.call('ZADD', prefix .. 'held', 'XX', 0, lane)
end
