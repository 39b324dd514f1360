--[[
  key-home-reserve: on the owner shard of an idempotency or dedupe key K of a sharded queue,
  answers K's home, or makes the submission's lane shard K's home by a reservation (step H1 of
  docs/SHARDING.md, 3.1). Entries of homes:<kind> are '<home shard>:<token>:<state>:<ms>', state
  'reserved' (H1 done, the job maybe not yet made) or 'confirmed' (H3: the home made it), ms the
  owner's clock when it was written; tokens come from home_seq, which only grows.

  Invariant: (K1) K has at most one home. A reservation is written only where K has none, or over
  exactly the entry the caller released (replace): the caller fenced that home first, so the old
  home can make no job of K with the old token any more. The owner's own record (its idem entry
  of a job that exists, its open dedupe window) counts as K's home on the owner itself, so while it
  holds K nothing is reserved elsewhere and its answer is given here.

  Input:
    KEYS[1] homes     echomq:{q#s.k}:homes:<kind>   hash K -> home entry
    KEYS[2] seq       echomq:{q#s.k}:home_seq       the owner's token counter
    ARGV[1] prefix    the owner shard's prefix, for its own idem hash, dedupe windows and jobs
    ARGV[2] kind      'idem' or 'dedupe'
    ARGV[3] key       K
    ARGV[4] lane shard L, the shard the submission's job goes to
    ARGV[5] replace   '<home>:<token>' of the entry the caller released, or '' for none
    ARGV[6] mode      for a dedupe key: 'throttle' (an open window holds K) or 'debounce' (only a
                      window whose job still waits, never claimed, holds K); '' for an idempotency key

  Output:
    {'RESERVED', L, token}                 K's home is L from now, by this token
    {'HOME', home, token, state, age ms}   K's home is another entry (state 'reserved' or 'confirmed')
    {'DUPLICATE', id, state, created ms}   the owner's own idem entry names this job
    {'THROTTLED', id, state}               the owner's own window is open (throttle)
    {'WAITING', id, lane}                  the owner's own debounce window's job waits in lane
]]
local rcall = redis.call
local homes, seq = KEYS[1], KEYS[2]
local prefix, kind, key, lane_shard, replace, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]

-- #include now_ms
-- #include key_held

local now = now_ms()
local entry = rcall('HGET', homes, key)
if entry then
  local home, token, state, at = string.match(entry, '^(%d+):(%d+):(%a+):(%d+)$')
  if replace ~= home .. ':' .. token then
    return {'HOME', home, token, state, tostring(now - tonumber(at))}
  end
else
  local held = key_held(prefix, kind, key, mode, now)
  if held then
    return held
  end
end

local token = tostring(rcall('INCR', seq))
rcall('HSET', homes, key, lane_shard .. ':' .. token .. ':reserved:' .. now)
return {'RESERVED', lane_shard, token}
