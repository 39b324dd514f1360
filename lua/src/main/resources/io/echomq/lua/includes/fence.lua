-- The fencing check shared by extend, complete and retry: only the holder of the current
-- lease may act. Returns nil when the caller holds it, else the rejection to return as is.
-- A job that is unknown, leased again since (attempts moved on), or no longer active is
-- left untouched.
local function fence(job, token)
  local fields = redis.call('HMGET', job, 'state', 'attempts')
  local state, attempts = fields[1], fields[2]
  if not state then
    return {'NOT_FOUND'}
  end
  if attempts ~= token then
    return {'STALE_TOKEN', state, attempts}
  end
  if state ~= 'active' then
    return {'NOT_ACTIVE', state, attempts}
  end
  return nil
end
