-- The fencing check shared by extend, complete and retry: only the holder of the current
-- lease may act. Returns nil when the caller holds it, else the rejection to return as is;
-- then, either way, the job's fields named after the action (read in the same HMGET, from
-- fields[4] on: fields[1..3] are state, attempts, created_at).
-- A job that is unknown, of another creation time (the id was handed out again after a
-- failover lost the lease's job: to the lease's holder that job does not exist), leased again
-- since (attempts moved on), or no longer active is left untouched; only its history records
-- the refusal. Needs now_ms and log_event.
local function fence(prefix, id, job, token, created, action, ...)
  local fields = redis.call('HMGET', job, 'state', 'attempts', 'created_at', ...)
  local state, attempts = fields[1], fields[2]
  if not state then
    return {'NOT_FOUND'}
  end
  if fields[3] ~= created then
    log_event(prefix, id, now_ms(), 'rejected', token, nil, nil,
      action .. ' with token ' .. token .. ' refused: the lease is of a job created at ' .. created
        .. ', this job was created at ' .. tostring(fields[3]))
    return {'NOT_FOUND'}
  end
  if attempts ~= token then
    log_event(prefix, id, now_ms(), 'rejected', token, nil, nil,
      action .. ' with token ' .. token .. ' refused: the job is at attempt ' .. attempts .. ' (' .. state .. ')')
    return {'STALE_TOKEN', state, attempts}
  end
  if state ~= 'active' then
    log_event(prefix, id, now_ms(), 'rejected', token, nil, nil,
      action .. ' with token ' .. token .. ' refused: the lease is over (' .. state .. ')')
    return {'NOT_ACTIVE', state, attempts}
  end
  return nil, fields
end
