-- Appends one event to a job's history (echomq:{q}:job:<id>:log), newest last, keeping the
-- last 64. Fields are joined by the unit separator (0x1f): at, event, attempt, worker, lease
-- deadline, detail. Consecutive heartbeats of one attempt fold into one 'extended' entry, so a
-- long job does not push its own claim out of the history. Numbers are written as tostring
-- writes them; callers on the hot path pass text instead (see integer_text).
local LOG_SEPARATOR = string.char(31)
local function log_event(prefix, id, at, event, attempt, worker, lease, detail)
  local log = prefix .. 'job:' .. id .. ':log'
  local sep = LOG_SEPARATOR
  local text = detail or ''
  if string.find(text, sep, 1, true) then
    text = string.gsub(text, sep, ' ')
  end
  -- Every field but the detail: a folded heartbeat keeps them and counts in the detail.
  local fields_but_detail = at .. sep .. event .. sep .. (attempt or '') .. sep .. (worker or '') .. sep .. (lease or '') .. sep
  if event == 'extended' then
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
  end
  if redis.call('RPUSH', log, fields_but_detail .. text) > 64 then
    redis.call('LTRIM', log, -64, -1)
  end
end
