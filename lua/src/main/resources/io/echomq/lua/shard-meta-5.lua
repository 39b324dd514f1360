--[[
  shard-meta: writes, copies or reads the settings of one shard of a sharded queue
  (docs/SHARDING.md, sections 4 and 6): paused, the job-event stream's cap, and the queue's caps
  and rate limits. Shard 0 holds the queue's settings and numbers every change: each write bumps
  its 'meta_version'. Every other shard holds a copy and the version it was copied from. Each shard
  enforces its own part of a queue-wide cap or rate L: shard s of N (its 'id_offset' and
  'id_stride', recorded by shard-layout; 0 and 1 when none) gets floor(L / N), plus 1 when
  s < L mod N, so the parts sum to L and the queue never runs over it. Lane limits apply on each
  shard as they are (a named lane lives on one shard).

  Invariant: touches no job. A copy is applied only when its version is newer than the shard's,
  so a copy sent again, late or out of order never puts back an older setting; after the copy of
  version v a shard enforces exactly its part of what shard 0 held at v.

  Input:
    KEYS[1] meta      the shard's meta hash
    KEYS[2] events    the shard's job-event stream
    KEYS[3] active    the shard's active set
    KEYS[4] held      the shard's held lanes
    KEYS[5] ring      the shard's ring of lanes with work
    ARGV[1] prefix    the shard's prefix
    ARGV[2] 'write' (shard 0: apply the settings given, bump the version), 'copy' (another shard:
            apply every setting, if ARGV[3] is newer than the shard's version), 'read' (shard 0's
            settings; on another shard, its copy and the version it was copied from), or
            'adopt' (shard 0, once its layout is recorded: take the queue's limits from the fields
            the claim reads when shard-meta never wrote them, i.e. as the queue had them on one shard,
            set shard 0's part of them for the layout now recorded, bump the version; ARGV[3..7] '')
    ARGV[3] the version copied ('copy'), '' otherwise
    ARGV[4] paused: '1' or '0' ('' for write: unchanged)
    ARGV[5] the event stream's cap: entries, 0 for no stream ('' for write: unchanged; for copy:
            never set, the scripts' default)
    ARGV[6] the queue's limits: 'max_active,rate_max,rate_window_ms,lane_max_active,lane_rate_max,
            lane_rate_window_ms', an empty field for none ('' for write: unchanged; for copy: none)
    ARGV[7] where the limits came from, 'api' or 'config' ('' when ARGV[6] is ''); a write of
            'config' limits that configuration applied before changes nothing (as set-limits)

  Output:
    {'OK', version, paused, events_max, limits, source}    write, read, adopt: the shard's settings now ('' for none)
    {'KEPT', version, paused, events_max, limits, source}  write of configured limits applied before: nothing changed
    {'COPIED', version}                                    copy: the shard holds this version now
    {'CURRENT', version}                                   copy: the shard's version is this one or newer; nothing changed
]]
local rcall = redis.call
local meta, events, active, held, ring = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, mode, copied = ARGV[1], ARGV[2], ARGV[3]
local paused, events_max, limits, source = ARGV[4], ARGV[5], ARGV[6], ARGV[7]

-- #include apply_limits
-- #include event_cap

local function settings(status)
  local m = rcall('HMGET', meta, 'meta_version', 'paused', 'events_max', 'queue_limits', 'limits_source')
  return {status, m[1] or '0', m[2] or '0', m[3] or '', m[4] or '', m[5] or ''}
end

-- This shard's part of a queue-wide count: the parts of shards 0 .. N-1 sum to the count.
local function part(count)
  if count == '' then
    return ''
  end
  local layout = rcall('HMGET', meta, 'id_offset', 'id_stride')
  local shard, shards, whole = tonumber(layout[1] or '0'), tonumber(layout[2] or '1'), tonumber(count)
  return tostring(math.floor(whole / shards) + ((shard < whole % shards) and 1 or 0))
end

local function apply_queue_limits(text)
  local v = {}
  for field in string.gmatch(text .. ',', '([^,]*),') do
    v[#v + 1] = field
  end
  for i = #v + 1, 6 do
    v[i] = ''
  end
  rcall('HSET', meta, 'queue_limits', text)
  apply_limits(prefix, meta, active, held, ring, {part(v[1]), part(v[2]), v[3], v[4], v[5], v[6]})
end

local function apply_paused(flag)
  if flag == '1' then
    rcall('HSET', meta, 'paused', '1')
  else
    rcall('HDEL', meta, 'paused')
  end
end

if mode == 'read' then
  return settings('OK')
end

if mode == 'adopt' then
  local adopted = rcall('HGET', meta, 'queue_limits')
  if not adopted then
    local m = rcall('HMGET', meta, 'max_active', 'rate_max', 'rate_window_ms', 'lane_max_active', 'lane_rate_max', 'lane_rate_window_ms')
    adopted = table.concat({m[1] or '', m[2] or '', m[3] or '', m[4] or '', m[5] or '', m[6] or ''}, ',')
  end
  apply_queue_limits(adopted)
  rcall('HINCRBY', meta, 'meta_version', 1)
  return settings('OK')
end

if mode == 'copy' then
  local version = tonumber(rcall('HGET', meta, 'meta_version') or '0')
  if version >= tonumber(copied) then
    return {'CURRENT', tostring(version)}
  end
  apply_paused(paused)
  set_event_cap(meta, events, tonumber(events_max))
  apply_queue_limits(limits)
  if source == '' then
    rcall('HDEL', meta, 'limits_source')
  else
    rcall('HSET', meta, 'limits_source', source)
  end
  rcall('HSET', meta, 'meta_version', copied)
  return {'COPIED', copied}
end

if source == 'config' then
  if rcall('HGET', meta, 'limits_config') == limits then
    return settings('KEPT')
  end
  rcall('HSET', meta, 'limits_config', limits)
end
if paused ~= '' then
  apply_paused(paused)
end
if events_max ~= '' then
  set_event_cap(meta, events, tonumber(events_max))
end
if source ~= '' then
  apply_queue_limits(limits)
  rcall('HSET', meta, 'limits_source', source)
end
rcall('HINCRBY', meta, 'meta_version', 1)
return settings('OK')
