-- Sets the cap of a queue's (or one shard's) job-event stream (set-events, shard-meta): max
-- entries (>= 1), 0 for no stream (the stream is deleted), or nil for the scripts' default (see
-- includes/log_event). The stream is trimmed to the cap at once, approximately, by whole nodes,
-- as every append trims. Returns the stream's length after the change.
local function set_event_cap(meta, events, max)
  if max == nil then
    redis.call('HDEL', meta, 'events_max')
    return redis.call('XLEN', events)
  end
  redis.call('HSET', meta, 'events_max', max)
  if max == 0 then
    redis.call('DEL', events)
    return 0
  end
  redis.call('XTRIM', events, 'MAXLEN', '~', max)
  return redis.call('XLEN', events)
end
