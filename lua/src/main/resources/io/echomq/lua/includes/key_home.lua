-- The key-home check of a sharded queue (docs/SHARDING.md, 3.1), made by enqueue_one before it
-- judges an idempotency or dedupe key. claim says how this shard came to make K's job:
--   'own', nil, ''   this shard owns K (the fast path): the owner's homes:<kind> names K's home
--                    when it is another shard, and then nothing is made here ({'HOME', s, kind}:
--                    the submission follows the home); no entry, or one naming this shard, goes on;
--   '<owner>:<t>'    this shard is K's home by the reservation of token t on the owner: a token
--                    not above K's fence here (raised when K was released from this shard) nor
--                    above the owner's floor (raised by the sweeper) is refused ({'FENCED', kind, ''}),
--                    so a submitter that stopped between reserving and creating never makes a
--                    second job of K after its home moved (K1).
-- Returns nil to go on. self is this shard's index. Reads nothing on a key-less submission.
local function key_home_check(prefix, kind, key, claim, self)
  if key == nil or key == '' then
    return nil
  end
  if claim == nil or claim == '' or claim == 'own' then
    local entry = redis.call('HGET', prefix .. 'homes:' .. kind, key)
    if entry then
      local home = tonumber(string.match(entry, '^(%d+):'))
      if home ~= self then
        return {'HOME', tostring(home), kind}
      end
    end
    return nil
  end
  local owner, token = string.match(claim, '^(%d+):(%d+)$')
  local fence = tonumber(redis.call('HGET', prefix .. 'fence:' .. kind, key) or '0')
  local floor = tonumber(redis.call('HGET', prefix .. 'fence-floor', owner) or '0')
  if tonumber(token) <= fence or tonumber(token) <= floor then
    return {'FENCED', kind, ''}
  end
  return nil
end
