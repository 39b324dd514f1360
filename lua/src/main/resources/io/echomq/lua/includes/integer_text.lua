-- A whole number (a time in ms, an id, a token) as the text redis.call would store for it.
-- A Lua number handed to redis.call is formatted anew by every call, through printf, at about
-- the cost of a small command; so the scripts on the hot path format each number once (and
-- the ones shared by all jobs of a call once per call) and hand the text on.
local function integer_text(n)
  return string.format('%d', n)
end
