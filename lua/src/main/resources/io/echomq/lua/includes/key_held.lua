-- What a shard of a sharded queue holds for a key K (docs/SHARDING.md, 3.1), as the shard answers
-- a submission of K: for an idempotency key, the job its idem entry names ({'DUPLICATE', id, state,
-- created ms}: the creation time lets a flow's root sent again from another shard make its missing
-- children, whose keys name it); for a dedupe key, its open window (mode 'throttle') or the
-- window's job still waiting, never claimed ('debounce'). nil when it holds nothing for K. The
-- owner's own record and a home's are read alike, so the reservation (key-home-reserve) and the
-- fence (key-home-release) agree on what holding K is.
local function key_held(prefix, kind, key, mode, now)
  if kind == 'idem' then
    local id = redis.call('HGET', prefix .. 'idem', key)
    local job = id and redis.call('HMGET', prefix .. 'job:' .. id, 'state', 'created_at')
    if job and job[1] then
      return {'DUPLICATE', id, job[1], job[2] or '0'}
    end
    return nil
  end
  local held = redis.call('GET', prefix .. 'dedupe:' .. key)
  local id, window_end = nil, nil
  if held then
    id, window_end = string.match(held, '^(%d+):(%d+)$')
  end
  if id and tonumber(window_end) > now then
    local f = redis.call('HMGET', prefix .. 'job:' .. id, 'state', 'attempts', 'lane')
    if mode ~= 'debounce' then
      return {'THROTTLED', id, f[1] or ''}
    end
    if f[1] == 'delayed' and f[2] == '0' then
      return {'WAITING', id, f[3]}
    end
  end
  return nil
end
