--[[
  schedule-home: on shard 0 of a sharded queue, the directory of its schedules' shards
  (docs/SHARDING.md, 3.3): each schedule name lives on one shard, the shard of its lane, so a name
  is unique over the shards; a put from a lane of another shard moves it there (S1-S4 below).

  A put or a remove of a name is two steps on two slots (this directory, then the name's home), so
  each step here that lets a change go on hands out a token, fresh and growing, and the home
  applies a change only if no later token was applied there before it (schedule-put and
  schedule-remove compare it with the 'fence' they keep for the name). So a put that was overtaken
  by a remove (or another put) of the same name cannot land after it: without the tokens, a put
  claimed here, a remove ran on the home and released the name, and the put then made a schedule
  no name reached, or, put again from another shard's lane meanwhile, a second schedule of the
  same name.

  A move is four steps: S1 here ('claim' from a shard other than the home) records the move (from,
  to, its token and the definition, so that anyone can finish it) and makes the new shard the
  name's home; S2 removes the schedule from the old shard and S3 puts it on the new one, both with
  the move's token as their fence; S4 here ('moved') drops the record. Removing before putting
  means two copies never fire; whoever finds the record (the ticker, the name's next put, remove,
  pause or resume) finishes the move before anything else, from S2, as every step is safe to run
  again with the same token.

  Invariant: a name has at most one home shard; 'claim' writes one only where the name has
  none or records a move, 'release' deletes it only while it names the caller's shard and no later
  token was handed out for the name, so a step sent again, or late, never moves a name another
  call placed. While a name's move is recorded no token is handed out for it (every action but
  'get', 'moved' and 'moves' answers MOVING instead), so the move's token is the name's last one
  until S4.

  Input:
    KEYS[1] homes     echomq:{q}:schedule-homes         hash name -> shard
    KEYS[2] tokens    echomq:{q}:schedule-home-tokens   hash name -> the last token handed out; '#seq' -> the last token minted
    KEYS[3] moves     echomq:{q}:schedule-moves         hash name -> its unfinished move: JSON [from, to, token, definition...]
    ARGV[1] name      ('' for moves)
    ARGV[2] shard     the shard the caller puts (claim) or removed (release) the schedule on ('' for get, remove, moved, moves)
    ARGV[3] action    'claim', 'remove', 'release', 'moved', 'get' or 'moves'
    ARGV[4] token     release, moved: the token its remove or move was handed
    ARGV[5] claim: the definition, schedule-put's ARGV[2] to ARGV[13], kept with a move so anyone can finish it:
            fingerprint
    ARGV[6] kind
    ARGV[7] cron expression
    ARGV[8] time zone
    ARGV[9] interval in ms
    ARGV[10] payload
    ARGV[11] lane
    ARGV[12] max attempts
    ARGV[13] misfire policy
    ARGV[14] misfire limit
    ARGV[15] misfire grace in ms
    ARGV[16] source

  Output:
    {'HOME', shard, token}  claim: the name's home is the caller's shard, put with this token;
                            remove: the name's home, remove with this token
    {'HOME', shard}         claim without a definition: the name's home is another shard (no token); get: its home
    {'MOVE', from, to, token, definition...}    claim: S1 done, this move is the caller's to finish (S2-S4)
    {'MOVING', from, to, token, definition...}  claim, remove: the name's move is unfinished: finish it, then
                                                call again; get: the same, its schedule is on one of the two
    {'NONE'}                get, remove: the name has no home
    {'RELEASED'}            release: the name has no home now
    {'OTHER', shard}        release: the name's home is another shard; nothing changed
    {'LATER'}               release: a later put or remove of the name was handed a token; nothing changed
    {'NONE'}                release: the name had no home
    {'DONE'}                moved: the move is finished
    {'NONE'}                moved: no move of the name with this token is recorded (finished by another, or superseded)
    {name...}               moves: the names whose move is unfinished
]]
local rcall = redis.call
local homes, tokens, moves, name, shard, action = KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3]

local function token()
  local t = rcall('HINCRBY', tokens, '#seq', 1)
  rcall('HSET', tokens, name, t)
  return tostring(t)
end

-- The record as a reply: status, from, to, token, then the definition.
local function move_reply(status, record)
  local reply = {status}
  for _, value in ipairs(cjson.decode(record)) do
    reply[#reply + 1] = value
  end
  return reply
end

if action == 'moves' then
  return rcall('HKEYS', moves)
end
local move = rcall('HGET', moves, name)
if action == 'moved' then
  if move and cjson.decode(move)[3] == ARGV[4] then
    rcall('HDEL', moves, name)
    return {'DONE'}
  end
  return {'NONE'}
end
if move and action ~= 'release' then
  return move_reply('MOVING', move)
end

local home = rcall('HGET', homes, name)
if action == 'get' then
  return home and {'HOME', home} or {'NONE'}
end
if action == 'claim' then
  if not home then
    rcall('HSET', homes, name, shard)
    home = shard
  end
  if home == shard then
    return {'HOME', home, token()}
  end
  if not ARGV[16] then
    return {'HOME', home}
  end
  -- S1: the move's record, then the new home (the name's lookups see the move first).
  local record = cjson.encode({home, shard, token(), ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11],
    ARGV[12], ARGV[13], ARGV[14], ARGV[15], ARGV[16]})
  rcall('HSET', moves, name, record)
  rcall('HSET', homes, name, shard)
  return move_reply('MOVE', record)
end
if not home then
  return {'NONE'}
end
if action == 'remove' then
  return {'HOME', home, token()}
end
if home ~= shard then
  return {'OTHER', home}
end
if rcall('HGET', tokens, name) ~= ARGV[4] then
  return {'LATER'}
end
rcall('HDEL', homes, name)
rcall('HDEL', tokens, name)
return {'RELEASED'}
