-- A flow child's settlement leaves a durable notice for its parent in the same script as the
-- settlement itself (docs/ARCHITECTURE.md, F3): echomq:{q}:notices maps the child's id to
-- '<parent queue> <parent id> <parent created ms> <child index> <policy> <outcome> <child created ms>', and the
-- child carries 'notice' until the flow relay has applied the notice on the parent's slot and
-- acknowledged it (flow-notice-ack); retention keeps such a child (see trim_finished). A job
-- without a parent leaves nothing. outcome is completed, dead or cancelled; a later settlement
-- of the same child (requeued, reconciled) replaces an unacknowledged notice, and the parent's
-- set keeps the first mark it saw (F2). A caller that has read the job's 'parent',
-- 'parent_policy' and 'created_at' already (the completion's fence, on the hot path) passes them
-- as {parent, policy, created}; others leave it nil and they are read here.
local function notify_parent(prefix, job, id, outcome, known)
  local f = known or redis.call('HMGET', job, 'parent', 'parent_policy', 'created_at')
  if f[1] then
    redis.call('HSET', prefix .. 'notices', id, f[1] .. ' ' .. f[2] .. ' ' .. outcome .. ' ' .. f[3])
    redis.call('HSET', job, 'notice', '1')
  end
end
