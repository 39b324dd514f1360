-- Idle claimers of a queue take turns, so that N idle workers ask the queue once per idle poll
-- between them, not N times (issue 39). echomq:{q}:idle-turns holds the server time (ms) of
-- the last turn handed out; a worker whose claim found nothing while it was idle books the next
-- turn, one idle poll after that one (or after now, if it has passed), and waits until then.
-- With N idle workers the turns are spaced one idle poll apart, each worker waiting about N of
-- them: a job that arrives is claimed at the next turn, within one idle poll, by whichever
-- worker holds it. A turn is no lease: it changes only when a claim is sent, never whether the
-- claim script runs; a turn whose worker died or came early is a claim that does not happen, so
-- a job waits one idle poll more, and is never lost (it stays pending for the next turn).
-- MAX_IDLE_WAIT_MS bounds one wait, should the server clock step back under a booked turn.
local MAX_IDLE_WAIT_MS = 60000

local function take_idle_turn(prefix, now, idle_poll_ms)
  local key = prefix .. 'idle-turns'
  local last = tonumber(redis.call('GET', key)) or 0
  local turn = math.max(last, now) + idle_poll_ms
  if turn - now > MAX_IDLE_WAIT_MS then
    turn = now + idle_poll_ms
  end
  -- The key outlives its last turn by one idle poll: no idle worker left, no key left.
  redis.call('SET', key, integer_text(turn), 'PX', integer_text(turn - now + idle_poll_ms))
  return turn - now
end
