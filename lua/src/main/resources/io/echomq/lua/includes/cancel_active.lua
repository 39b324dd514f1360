-- Ends an active job whose cancel was requested as cancelled: out of the active set (and its
-- lane's count), into the cancelled set, its lease dropped. The one way a job leaves the active
-- set for cancelled, whether its holder stopped it (stop), its attempt failed (retry) or its
-- lease expired (reap): a requested cancel is never dropped on the way out. A flow child leaves
-- its parent a notice. Needs log_event, leave_active and notify_parent.
local function cancel_active(prefix, active, cancelled, job, id, lane, now, attempt, worker, reason, detail)
  redis.call('ZREM', active, id)
  leave_active(prefix, lane, {id})
  redis.call('ZADD', cancelled, now, id)
  redis.call('HSET', job, 'state', 'cancelled', 'finished_at', now, 'last_error', reason)
  redis.call('HDEL', job, 'lease_until')
  log_event(prefix, id, now, 'cancelled', attempt, worker, nil, detail)
  notify_parent(prefix, job, id, 'cancelled')
end
