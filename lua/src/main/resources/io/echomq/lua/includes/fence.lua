-- The fencing check shared by extend, complete and retry: only the holder of the current
-- lease may act. Returns nil when the caller holds it, else the rejection to return as is;
-- then, either way, the job's fields named after the action (read in the same HMGET).
-- A job that is unknown, leased again since (attempts moved on), or no longer active is
-- left untouched; only its history records the refusal. Needs now_ms and log_event.
local function fence(prefix, id, job, token, action, ...)
  local fields = redis.call('HMGET', job, 'state', 'attempts', ...)
  local state, attempts = fields[1], fields[2]
  if not state then
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
