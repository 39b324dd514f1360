-- Mints the next job id of a queue, or of one shard of a sharded queue (docs/SHARDING.md, 1): the
-- n-th id of shard s of N is n × N + s, so ids are unique over the shards of a queue, an id names
-- its shard (id mod N), and within a shard they still grow (push_pending's order). ids is nil on a
-- queue of one shard (the id is n, and minting costs the INCR alone, as before sharding), or
-- {stride = N, offset = s}, which the shard's client passes: it knows its layout, which
-- shard-layout recorded in the shard's meta, so no script reads the meta to mint. Needs integer_text.
local function mint_id(seq, ids)
  local n = redis.call('INCR', seq)
  if not ids then
    return integer_text(n)
  end
  return integer_text(n * ids.stride + ids.offset)
end

-- The id layout a shard's client passes as two arguments (stride, offset), nil when absent or ''
-- (a queue of one shard).
local function id_layout(stride, offset)
  if stride == nil or stride == '' then
    return nil
  end
  return {stride = tonumber(stride), offset = tonumber(offset)}
end

-- The shard count recorded on this shard 0 when a client passed no id layout (ids nil) to a queue
-- laid out over N > 1 shards, else nil. Such a client takes the queue for one of one shard (an
-- engine or program whose configuration does not name its shards): an id it minted here would
-- name another shard than this one, a job its settlements and operators never find. So a script
-- that mints makes nothing when this answers, and says so ({'SHARDED', N}). Costs a mint of one
-- shard one HGET; a shard's client, which passes its layout, pays nothing.
local function shards_unknown_to_client(prefix, ids)
  if ids then
    return nil
  end
  return redis.call('HGET', prefix .. 'meta', 'id_stride')
end
