-- Stores one new job, or answers the job an idempotency key already names. Returns
-- {'CREATED'|'DUPLICATE', id, state}. now_text is the server clock in ms as text (see
-- integer_text), formatted once by the caller for every job of its call. The job is due at
-- run_at (ms, judged on that clock; nil for none) or after delay_ms (at most one of them is
-- given); a due time that is not in the future makes it pending now. priority (0-9) orders it
-- within its lane (see push_pending); the default is not stored. Needs push_pending,
-- log_event and integer_text.
local function enqueue_one(prefix, seq, ring, delayed, idem, now_text, payload, max_attempts, delay_ms, lane, idem_key, run_at, priority)
  if idem_key ~= '' then
    local existing = redis.call('HGET', idem, idem_key)
    if existing then
      local state = redis.call('HGET', prefix .. 'job:' .. existing, 'state')
      if state then
        return {'DUPLICATE', existing, state}
      end
      -- The mapping outlived its job (retention removed the job); the key is free again.
      redis.call('HDEL', idem, idem_key)
    end
  end

  local id = integer_text(redis.call('INCR', seq))
  local job = prefix .. 'job:' .. id
  local budget = integer_text(max_attempts)
  redis.call('HSET', job, 'id', id, 'payload', payload, 'lane', lane, 'attempts', '0',
    'max_attempts', budget, 'retry_budget', budget, 'created_at', now_text)
  if idem_key ~= '' then
    redis.call('HSET', job, 'idem', idem_key)
    redis.call('HSET', idem, idem_key, id)
  end
  if priority ~= PRIORITY_DEFAULT then
    redis.call('HSET', job, 'priority', integer_text(priority))
  end

  local due_ms = nil
  if run_at then
    if run_at > tonumber(now_text) then
      due_ms = run_at
    end
  elseif delay_ms > 0 then
    due_ms = tonumber(now_text) + delay_ms
  end
  if due_ms then
    local due = integer_text(due_ms)
    redis.call('HSET', job, 'state', 'delayed', 'due_at', due)
    redis.call('ZADD', delayed, due, id)
    log_event(prefix, id, now_text, 'enqueued', '0', nil, nil, 'delayed until ' .. due)
    return {'CREATED', id, 'delayed'}
  end
  push_pending(prefix, ring, lane, id, priority)
  log_event(prefix, id, now_text, 'enqueued', '0', nil, nil, 'lane ' .. lane)
  return {'CREATED', id, 'pending'}
end
