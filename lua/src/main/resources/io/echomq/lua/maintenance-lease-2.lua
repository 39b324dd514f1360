--[[
  maintenance-lease: takes, keeps or hands back the lease that names the one engine keeping house
  for a queue (the reaper, retention, reconciler, effect retention and schedule ticker), so those
  duties run once per queue however many engines serve it. A holder that dies stops renewing; its
  lease runs out on the server clock and the next engine that asks takes it.

  Invariant: while the lease key lives it names one holder, and only that holder renews or
  releases it. A holder keeps its token across renewals; every change of holder mints a token
  higher than any before on this queue (the counter lives in the queue's meta hash, which outlives
  the lease), so two holdings are told apart even when one engine takes the lease again. The
  duties are safe to overlap (each is a script judged on the server clock, or an effect-row delete
  that rechecks Valkey), so the lease saves their cost and guards no invariant of the jobs: a
  holder that a pause kept past its lease and another that took over may both run one round.

  Input:
    KEYS[1] lease     echomq:{q}:maintenance   hash: holder, token; expires with the lease
    KEYS[2] meta      echomq:{q}:meta          field maintenance_token: the last token minted
    ARGV[1] holder    the asking engine's name, unique per engine
    ARGV[2] 'hold' or 'release'
    ARGV[3] lease length (ms, > 0) for 'hold'

  Output:
    {'HELD', token, ms}        the caller holds the lease for ms more (from this script's run)
    {'HELD_BY', holder, ms}    another engine holds it for ms more
    {'RELEASED'}               the caller held it; nobody does now
    {'NOT_HELD'}               release by an engine that did not hold it: nothing changed
]]
local rcall = redis.call
local lease, meta = KEYS[1], KEYS[2]
local holder, op = ARGV[1], ARGV[2]
local current = rcall('HGET', lease, 'holder')

if op == 'release' then
  if current == holder then
    rcall('DEL', lease)
    return {'RELEASED'}
  end
  return {'NOT_HELD'}
end

if current and current ~= holder then
  return {'HELD_BY', current, rcall('PTTL', lease)}
end
local ms = tonumber(ARGV[3])
local token
if current then
  token = rcall('HGET', lease, 'token')
else
  token = tostring(rcall('HINCRBY', meta, 'maintenance_token', 1))
  rcall('HSET', lease, 'holder', holder, 'token', token)
end
rcall('PEXPIRE', lease, ms)
return {'HELD', token, ms}
