-- The acknowledgement shared by complete and complete-claim: moves each job the caller holds
-- from active to completed, fenced by its token and creation time (a stale or settled lease, or
-- a lease of another job that had this id, changes nothing; the others still settle). acks
-- holds id, token, created, id, token, created, ... Returns one settlement per job, in order:
-- {'OK', finished_at} or fence's rejection. Every job settled here shares one finished_at.
-- The sets are updated once for all the jobs, after each was fenced on its own hash.
--
-- Then retention keeps pace on the settle path itself (as BullMQ's removeOnComplete does in its
-- finish script): the oldest completed jobs beyond keep_count or older than max_age ms are
-- deleted, at most two per job settled here, so each call's work is bounded by its own
-- acknowledgements, the completed set never grows past its bound whatever the completion rate,
-- and an excess left from before (a lowered bound) shrinks by one job per job completed.
-- A flow child leaves its parent a notice (notify_parent). Needs now_ms, log_event, fence,
-- integer_text, trim_finished, leave_active and notify_parent.
local function complete_jobs(prefix, active, completed, idem, now, acks, keep_count, max_age)
  local now_text = integer_text(now)
  local settlements, settled, finished, by_lane = {}, {}, {}, {}
  for k = 1, #acks, 3 do
    local id, token = acks[k], acks[k + 1]
    local job = prefix .. 'job:' .. id
    local rejected, fields = fence(prefix, id, job, token, acks[k + 2], 'complete', 'worker', 'lane', 'parent',
      'parent_policy')
    if rejected then
      settlements[#settlements + 1] = rejected
    else
      redis.call('HSET', job, 'state', 'completed', 'finished_at', now_text)
      redis.call('HDEL', job, 'lease_until')
      log_event(prefix, id, now_text, 'completed', token, fields[4], nil, '', acks[k + 2], fields[5])
      notify_parent(prefix, job, id, 'completed', {fields[6], fields[7], fields[3]})
      settlements[#settlements + 1] = {'OK', now}
      settled[#settled + 1] = id
      finished[#finished + 1] = now_text
      finished[#finished + 1] = id
      local lane = fields[5]
      by_lane[lane] = by_lane[lane] or {}
      table.insert(by_lane[lane], id)
    end
  end
  if #settled > 0 then
    redis.call('ZREM', active, unpack(settled))
    for lane, ids in pairs(by_lane) do
      leave_active(prefix, lane, ids)
    end
    redis.call('ZADD', completed, unpack(finished))
    trim_finished(prefix, completed, idem, keep_count, max_age, now, 2 * #settled)
  end
  return settlements
end
