--[[
  key-home-floor: on a shard of a sharded queue, fences off every token of one owner shard up to
  a floor, then deletes the given fences of that owner's keys that the floor now covers
  (docs/SHARDING.md, 3.1: the sweeper keeps the fences bounded, invariant 9).

  Invariant: (K1) a token is refused here after this step whenever it was refused before: a fence
  is deleted only when the floor, which only rises, refuses every token it refused.

  Input:
    KEYS[1] floors    echomq:{q#s.k}:fence-floor   hash owner shard -> floor token
    ARGV[1] prefix    this shard's prefix, for its fence:<kind> hashes
    ARGV[2] owner     the owner shard whose tokens the floor is for
    ARGV[3] floor     the token up to which the owner has no reservation out (the sweeper's count)
    ARGV[4], ARGV[5], ...  pairs kind ('idem' or 'dedupe'), key: fences of keys the owner owns

  Output:
    {floor, deleted}  the floor in force and how many fences were deleted
]]
local rcall = redis.call
local floors = KEYS[1]
local prefix, owner = ARGV[1], ARGV[2]

local floor = math.max(tonumber(rcall('HGET', floors, owner) or '0'), tonumber(ARGV[3]))
rcall('HSET', floors, owner, tostring(floor))
local deleted = 0
for i = 4, #ARGV - 1, 2 do
  local fence = prefix .. 'fence:' .. ARGV[i]
  local token = rcall('HGET', fence, ARGV[i + 1])
  if token and tonumber(token) <= floor then
    rcall('HDEL', fence, ARGV[i + 1])
    deleted = deleted + 1
  end
end
return {tostring(floor), deleted}
