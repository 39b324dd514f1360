--[[
  set-limits: sets or clears a queue's concurrency caps and rate limits, for the whole queue
  and for each of its lanes. The claim enforces them on the server clock (see includes/limits).

  Invariant: touches no job: a job that waits for a limit stays pending, in its lane's pending
  set. Without lane limits no lane is held: clearing them puts every held lane with pending jobs
  back in the ring here; otherwise every held lane is looked at again by the next claim, so a
  limit raised frees the lanes it held at once. When a lane cap is set where there was none, each lane's set of
  active jobs is rebuilt from the active set (it is not kept while no lane cap is set), so jobs
  already running count against the new cap.

  Which source wins: the last change. Limits from configuration are applied when they differ
  from the ones configuration applied last ('limits_config'), whatever the queue has now: limits
  an admin set over the API since (during an incident, say) stand until the configuration itself
  changes (KEPT), and a server restarting with an unchanged configuration changes nothing.
  'limits_source' says where the limits in force came from.

  Input:
    KEYS[1] meta      echomq:{q}:meta     hash; the limits are its fields
    KEYS[2] active    echomq:{q}:active   zset id -> lease deadline
    KEYS[3] held      echomq:{q}:held     zset lane -> when the claim looks at it again
    KEYS[4] ring      echomq:{q}:lanes    lanes with pending work that no limit holds
    ARGV[1] prefix    echomq:{q}:
    ARGV[2] max active jobs in the queue ('' = no cap)
    ARGV[3] max jobs started per window, in the queue ('' = no rate limit)
    ARGV[4] the queue's window in ms ('' when ARGV[3] is '')
    ARGV[5] max active jobs per lane ('' = no cap)
    ARGV[6] max jobs started per window, per lane ('' = no rate limit)
    ARGV[7] the lanes' window in ms ('' when ARGV[6] is '')
    ARGV[8] source    'config' or 'api'

  Output:
    {'OK', rebuilt}   rebuilt: how many active jobs were counted into their lanes' sets (0 unless
                      a lane cap was set where there was none)
    {'KEPT', source}  (configuration only) configuration applied these limits before: nothing
                      changed; source is where the limits in force came from
]]
local rcall = redis.call
local meta, active, held, ring = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, source = ARGV[1], ARGV[8]

-- #include apply_limits

if source == 'config' then
  local configured = table.concat({ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]}, ',')
  local applied = rcall('HMGET', meta, 'limits_config', 'limits_source')
  if applied[1] == configured then
    return {'KEPT', applied[2] or 'config'}
  end
  rcall('HSET', meta, 'limits_config', configured)
end
rcall('HSET', meta, 'limits_source', source)

local rebuilt = apply_limits(prefix, meta, active, held, ring, {ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]})
return {'OK', rebuilt}
