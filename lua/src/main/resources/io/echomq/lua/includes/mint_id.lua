-- Mints the next job id of a queue, or of one shard of a sharded queue (docs/SHARDING.md, 1): the
-- n-th id of the shard is n × id_stride + id_offset, both read from the shard's meta hash, where
-- shard-layout records them (N and the shard's index); without them the id is n, as on every queue
-- of one shard. So ids are unique over the shards of a queue and an id names its shard (id mod N),
-- and within a shard they still grow (push_pending's order). Needs integer_text.
local function mint_id(prefix, seq)
  local n = redis.call('INCR', seq)
  local layout = redis.call('HMGET', prefix .. 'meta', 'id_stride', 'id_offset')
  if not layout[1] then
    return integer_text(n)
  end
  return integer_text(n * tonumber(layout[1]) + tonumber(layout[2]))
end
