-- Stores one new job, or answers the job an idempotency key already names, or applies the
-- submission's dedupe key. Returns {'CREATED'|'DUPLICATE'|'REPLACED'|'THROTTLED', id, state}.
-- now_text is the server clock in ms as text (see integer_text), formatted once by the caller for
-- every job of its call. The job is due at run_at (ms, judged on that clock; nil for none) or after
-- delay_ms (at most one of them is given); a due time that is not in the future makes it pending
-- now. priority (0-9) orders it within its lane (see push_pending); the default is not stored.
-- Needs push_pending, log_event, integer_text, mint_id and key_home; ids is mint_id's (nil on a queue of one shard). trace (nil or '' for none) is the creation's
-- trace context (W3C traceparent, then a newline and the tracestate when there is one), stored
-- with a new job as 'trace' for the worker's process span to link to; without tracing nothing is stored.
--
-- A dedupe key (dedupe_key, nil or '' for none) names a window of window_ms on the server clock,
-- kept in echomq:{q}:dedupe:<key> as '<job id>:<window end ms>', expiring at the window's end (so
-- nothing needs sweeping). The idempotency key is judged first: a known one answers its job and
-- nothing else happens. Then, while the key's window is open (its end is after now):
--   'throttle': nothing is made; THROTTLED with the window's job and its state ('' when that job
--               was deleted since: the window still holds);
--   'debounce': the window's job, if it is still delayed and was never claimed, takes this
--               submission's payload, lane, priority and max attempts, is due at now + window_ms, and the
--               window ends then (REPLACED). A replacing submission's idempotency key names the
--               job from then on too (kept in 'idem_also', released with the job), so a client
--               that retries it is answered DUPLICATE with the job instead of making another;
--               the job keeps its own key ('idem', the one its effect is recorded under).
-- Otherwise a job is made as usual and the window opens on it: a debounced job is delayed by the
-- window (the caller gives no delay or run-at time with it).
--
-- A submission on a shard of a sharded queue gives claims ({idem = claim, dedupe = claim}, each
-- 'own' when nil or ''; nil for none: an unsharded queue, and the flow and schedule keys, whose home is
-- the shard that makes them, docs/SHARDING.md 3.2): each key first passes key_home_check, which may answer {'HOME', shard, kind} or
-- {'FENCED', kind, ''} and make nothing; the idempotency key is checked before its lookup and the
-- dedupe key after it, so a known idempotency key still answers its job first.
local function enqueue_one(prefix, seq, ring, delayed, idem, now_text, payload, max_attempts, delay_ms, lane, idem_key, run_at,
    priority, dedupe_key, window_ms, mode, trace, ids, claims)
  if claims then
    local home = key_home_check(prefix, 'idem', idem_key, claims.idem, ids.offset)
    if home then
      return home
    end
  end
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

  if claims then
    local home = key_home_check(prefix, 'dedupe', dedupe_key, claims.dedupe, ids.offset)
    if home then
      return home
    end
  end

  local window_key = nil
  if dedupe_key and dedupe_key ~= '' then
    window_key = prefix .. 'dedupe:' .. dedupe_key
    local held = redis.call('GET', window_key)
    local held_id, held_end = nil, nil
    if held then
      held_id, held_end = string.match(held, '^(%d+):(%d+)$')
    end
    -- The window is judged on TIME: a key that the server has not yet expired but whose end
    -- has passed on TIME is closed.
    if held_id and tonumber(held_end) > tonumber(now_text) then
      local held_job = prefix .. 'job:' .. held_id
      if mode == 'throttle' then
        return {'THROTTLED', held_id, redis.call('HGET', held_job, 'state') or ''}
      end
      local f = redis.call('HMGET', held_job, 'state', 'attempts', 'due_at')
      if f[1] == 'delayed' and f[2] == '0' then
        local due = integer_text(tonumber(now_text) + window_ms)
        local budget = integer_text(max_attempts)
        redis.call('HSET', held_job, 'payload', payload, 'lane', lane, 'max_attempts', budget, 'retry_budget', budget,
          'due_at', due)
        if priority == PRIORITY_DEFAULT then
          redis.call('HDEL', held_job, 'priority')
        else
          redis.call('HSET', held_job, 'priority', integer_text(priority))
        end
        redis.call('ZADD', delayed, due, held_id)
        redis.call('SET', window_key, held_id .. ':' .. due, 'PXAT', due)
        if idem_key ~= '' then
          redis.call('HSET', idem, idem_key, held_id)
          local also = redis.call('HGET', held_job, 'idem_also')
          redis.call('HSET', held_job, 'idem_also', also and (also .. string.char(31) .. idem_key) or idem_key)
        end
        log_event(prefix, held_id, now_text, 'replaced', '0', nil, nil,
          'by a debounced submission (key ' .. dedupe_key .. '); lane ' .. lane .. ', delayed until ' .. due
          .. ' (was ' .. tostring(f[3]) .. ')')
        return {'REPLACED', held_id, 'delayed'}
      end
      -- Claimed, finished, cancelled or deleted: its window is over for debouncing; a new job opens one.
    end
    if mode == 'debounce' then
      delay_ms, run_at = window_ms, nil
    end
  end

  local id = mint_id(seq, ids)
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
  if trace and trace ~= '' then
    redis.call('HSET', job, 'trace', trace)
  end

  if window_key then
    local window_end = integer_text(tonumber(now_text) + window_ms)
    redis.call('HSET', job, 'dedupe', dedupe_key)
    redis.call('SET', window_key, id .. ':' .. window_end, 'PXAT', window_end)
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
    log_event(prefix, id, now_text, 'enqueued', '0', nil, nil, 'delayed until ' .. due, now_text, lane)
    return {'CREATED', id, 'delayed'}
  end
  push_pending(prefix, ring, lane, id, priority)
  log_event(prefix, id, now_text, 'enqueued', '0', nil, nil, 'lane ' .. lane, now_text, lane)
  return {'CREATED', id, 'pending'}
end
