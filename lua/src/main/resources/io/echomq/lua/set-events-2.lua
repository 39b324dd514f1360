--[[
  set-events: sets a queue's job-event stream cap, the most entries echomq:{q}:events keeps
  (every script that records a job's history appends to it: see includes/log_event), or turns
  the stream off.

  Invariant: touches no job. The cap applies from the next event; the stream is trimmed to it at
  once (approximately, by whole nodes, as every append trims), or deleted when it is turned off.

  Input:
    KEYS[1] meta      echomq:{q}:meta     hash; field 'events_max'
    KEYS[2] events    echomq:{q}:events   the stream
    ARGV[1] the cap: entries (>= 1), or 0 for no stream

  Output:
    {'OK', length}    the stream's length after the change
]]
local meta, events = KEYS[1], KEYS[2]

-- #include event_cap

return {'OK', set_event_cap(meta, events, tonumber(ARGV[1]))}
