-- The server clock in milliseconds. Every deadline and due time comes from here,
-- never from the caller, so workers with skewed clocks all lease against one clock.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
