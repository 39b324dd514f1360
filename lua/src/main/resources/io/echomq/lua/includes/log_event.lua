-- Appends one entry to the queue's job-event stream (echomq:{q}:events), the durable feed that
-- readers follow and resume by entry id. An entry has one field, 'e': job id, created (the job's
-- creation time, ms), event, lane, attempt, at (ms, server clock) and detail, joined by the unit
-- separator (0x1f) as in the history; one field rather than seven halves what an append costs
-- the server (the argument count dominates it), and every state change pays it. The stream is capped at the queue's meta field
-- 'events_max' (approximately: MAXLEN ~ trims whole nodes of up to stream-node-max-entries, 100 by
-- default, so the length stays under the cap plus one node), EVENTS_DEFAULT_MAX when the field is
-- unset, no stream at all when it is 0. The cap is read once per script call, whatever the number
-- of jobs it moves. created and lane are read from the job hash unless the caller has them at hand
-- (the hot paths do); a caller that is about to delete the job streams before deleting it.
local EVENTS_DEFAULT_MAX = 10000
local STREAM_SEPARATOR = string.char(31)
local events_max = nil
local function stream_event(prefix, id, at, event, attempt, detail, created, lane)
  if events_max == nil then
    events_max = tonumber(redis.call('HGET', prefix .. 'meta', 'events_max')) or EVENTS_DEFAULT_MAX
  end
  if events_max <= 0 then
    return
  end
  if created == nil or lane == nil then
    local f = redis.call('HMGET', prefix .. 'job:' .. id, 'created_at', 'lane')
    created, lane = created or f[1] or '', lane or f[2] or ''
  end
  local sep = STREAM_SEPARATOR
  redis.call('XADD', prefix .. 'events', 'MAXLEN', '~', events_max, '*', 'e',
    id .. sep .. created .. sep .. event .. sep .. lane .. sep .. (attempt or '') .. sep .. at .. sep .. (detail or ''))
end

-- Appends one event to a job's history (echomq:{q}:job:<id>:log), newest last, keeping the
-- last 64. Fields are joined by the unit separator (0x1f): at, event, attempt, worker, lease
-- deadline, detail. Consecutive heartbeats of one attempt fold into one 'extended' entry, so a
-- long job does not push its own claim out of the history. Every event but a heartbeat also goes to
-- the queue's job-event stream (stream_event), so every script that records a job's history streams
-- it too; created and lane may be given by callers that have them at hand. Numbers are written as
-- tostring writes them; callers on the hot path pass text instead (see integer_text).
local LOG_SEPARATOR = string.char(31)
local function log_event(prefix, id, at, event, attempt, worker, lease, detail, created, lane)
  local log = prefix .. 'job:' .. id .. ':log'
  local sep = LOG_SEPARATOR
  local text = detail or ''
  if string.find(text, sep, 1, true) then
    text = string.gsub(text, sep, ' ')
  end
  -- Every field but the detail: a folded heartbeat keeps them and counts in the detail.
  local fields_but_detail = at .. sep .. event .. sep .. (attempt or '') .. sep .. (worker or '') .. sep .. (lease or '') .. sep
  if event == 'extended' then
    -- A heartbeat is no state change: the stream carries progress instead (see extend).
    local last = redis.call('LINDEX', log, -1)
    if last then
      local fields = {}
      for field in string.gmatch(last .. sep, '([^' .. sep .. ']*)' .. sep) do
        fields[#fields + 1] = field
      end
      if fields[2] == 'extended' and fields[3] == tostring(attempt) then
        local times = (tonumber(string.match(fields[6] or '', '^(%d+)')) or 1) + 1
        redis.call('LSET', log, -1, fields_but_detail .. times .. ' heartbeats')
        return
      end
    end
  else
    stream_event(prefix, id, at, event, attempt, text, created, lane)
  end
  if redis.call('RPUSH', log, fields_but_detail .. text) > 64 then
    redis.call('LTRIM', log, -64, -1)
  end
end
