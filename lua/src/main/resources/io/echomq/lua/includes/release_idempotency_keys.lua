-- Releases the idempotency keys that name a job about to be deleted: its own ('idem'), and those
-- of the debounced submissions that replaced it ('idem_also', joined by the unit separator 0x1f,
-- which no key may contain), each only while it still names this job, so a key answers its job
-- for as long as the job is kept and is free again once it is gone.
local function release_idempotency_keys(idem, job, id)
  local f = redis.call('HMGET', job, 'idem', 'idem_also')
  local keys = {}
  if f[1] then
    keys[1] = f[1]
  end
  if f[2] then
    for key in string.gmatch(f[2], '[^' .. string.char(31) .. ']+') do
      keys[#keys + 1] = key
    end
  end
  for _, key in ipairs(keys) do
    if redis.call('HGET', idem, key) == id then
      redis.call('HDEL', idem, key)
    end
  end
end
