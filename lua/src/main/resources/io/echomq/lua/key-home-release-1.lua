--[[
  key-home-release: on a shard H that is, or was, the home of a key K of a sharded queue, answers
  what H holds for K and, when it holds nothing and a token is given, fences K on H (step H4 of
  docs/SHARDING.md, 3.1): H then refuses to make a job of K by any token up to that one.

  Invariant: (K1) a home is fenced only while it holds nothing for K, in the same step that looks,
  so a job or window of K is never left behind on a home that its owner no longer names; the fence
  only rises.

  Input:
    KEYS[1] fence     echomq:{q#s.k}:fence:<kind>   hash K -> the highest fenced token
    ARGV[1] prefix    H's prefix, for its idem hash, dedupe windows and jobs
    ARGV[2] kind      'idem' or 'dedupe'
    ARGV[3] key       K
    ARGV[4] token     the home entry's token to fence up to ('' = only answer what H holds)
    ARGV[5] mode      for a dedupe key: 'throttle' (an open window holds K) or 'debounce' (only a
                      window whose job waits, never claimed, holds K); '' for an idempotency key

  Output:
    {'DUPLICATE', id, state, created ms}   H holds K's job (idempotency key)
    {'THROTTLED', id, state}               H's window for K is open (state '' when its job was deleted since)
    {'WAITING', id, lane}                  H's debounce window's job waits in lane
    {'EMPTY'}                              H holds nothing for K (no token given: nothing changed)
    {'RELEASED'}                           H holds nothing for K and is fenced up to the token
]]
local rcall = redis.call
local fence = KEYS[1]
local prefix, kind, key, token, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

-- #include now_ms
-- #include key_held

local held = key_held(prefix, kind, key, mode, now_ms())
if held then
  return held
end
if token == '' then
  return {'EMPTY'}
end
if tonumber(rcall('HGET', fence, key) or '0') < tonumber(token) then
  rcall('HSET', fence, key, token)
end
return {'RELEASED'}
