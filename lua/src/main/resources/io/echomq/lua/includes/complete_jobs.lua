-- The acknowledgement shared by complete and complete-claim: moves each job the caller holds
-- from active to completed, fenced by its token (a stale or settled lease changes nothing; the
-- others still settle). acks holds id, token, id, token, ... Returns one settlement per job, in
-- order: {'OK', finished_at} or fence's rejection. Every job settled here shares one finished_at.
-- The sets are updated once for all the jobs, after each was fenced on its own hash.
-- Needs now_ms, log_event, fence and integer_text.
local function complete_jobs(prefix, active, completed, now, acks)
  local now_text = integer_text(now)
  local settlements, settled, finished = {}, {}, {}
  for k = 1, #acks, 2 do
    local id, token = acks[k], acks[k + 1]
    local job = prefix .. 'job:' .. id
    local rejected, fields = fence(prefix, id, job, token, 'complete', 'worker')
    if rejected then
      settlements[#settlements + 1] = rejected
    else
      redis.call('HSET', job, 'state', 'completed', 'finished_at', now_text)
      redis.call('HDEL', job, 'lease_until')
      log_event(prefix, id, now_text, 'completed', token, fields[3], nil, '')
      settlements[#settlements + 1] = {'OK', now}
      settled[#settled + 1] = id
      finished[#finished + 1] = now_text
      finished[#finished + 1] = id
    end
  end
  if #settled > 0 then
    redis.call('ZREM', active, unpack(settled))
    redis.call('ZADD', completed, unpack(finished))
  end
  return settlements
end
