-- A flow parent that leaves waiting without running (a child with policy fail-parent ended
-- badly, or an operator cancelled it) has its children that have not settled cancelled: their
-- references ('<queue> <id> <created ms>', one per line) go to echomq:{q}:child-cancels under
-- the parent's id, in the same script that moved the parent, and the flow relay sends a cancel
-- to each on its own slot before it deletes the entry (a crash between resends them: a cancel
-- of a finished job changes nothing). A child that is active is asked to stop, as any cancel.
local function cancel_children(prefix, id)
  local flow = prefix .. 'job:' .. id .. ':flow'
  local expected = tonumber(redis.call('HGET', prefix .. 'job:' .. id, 'flow_expected')) or 0
  local refs = {}
  for i = 0, expected - 1 do
    local child = redis.call('HGET', flow, 'child:' .. i)
    if child and redis.call('HEXISTS', flow, 'settled:' .. i) == 0 then
      refs[#refs + 1] = child
    end
  end
  if #refs > 0 then
    redis.call('HSET', prefix .. 'child-cancels', id, table.concat(refs, '\n'))
  end
end
