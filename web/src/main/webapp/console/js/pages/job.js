// One job: its fields, payload (as text), actions, the effect row and its result, and a per-attempt timeline that
// answers "why did this run twice?" at a glance.
import { get, post, put, enc, isAdmin } from '../api.js';
import { h, replace, timeEl, duration, confirmAction, notify, describeError } from '../dom.js';

const ENDINGS = {
  completed: 'completed',
  retried: 'failed; retried',
  dead: 'failed; dead-lettered',
  reaped: 'lease expired; taken back by the reaper',
  rejected: 'late settlement refused (a newer lease holds the job)',
  cancelled: 'cancelled',
  requeued: 'requeued by an operator',
  reconciled: 'completed by the reconciler (its effect had committed)',
};

const EVENT_WORDS = {
  enqueued: 'submitted',
  promoted: 'due: moved to pending',
  rescheduled: 'due time changed by an operator',
  'cancel-requested': 'cancel requested by an operator',
  claimed: 'claimed',
  extended: 'lease extended (heartbeat)',
  completed: 'completed',
  retried: 'failed, will be retried',
  dead: 'dead-lettered',
  reaped: 'lease expired, reaped',
  rejected: 'settlement refused: stale token',
  cancelled: 'cancelled',
  requeued: 'requeued with a fresh budget',
  reconciled: 'completed by the reconciler',
  'child-settled': 'a flow child settled',
  released: 'every flow child settled: moved to pending',
};

const ms = (iso) => (iso ? new Date(iso).getTime() : NaN);

/**
 * Splits the history (time order) into groups: one per attempt (token), in order of the attempt's
 * first event, and, between them, the events that concern no attempt (submission, promotion,
 * operator actions), where they happened.
 */
export function groupHistory(history) {
  const groups = [];
  const byAttempt = new Map();
  for (const e of history || []) {
    const k = e.attempt === null || e.attempt === undefined || Number(e.attempt) === 0 ? null : Number(e.attempt);
    if (k === null) {
      const last = groups[groups.length - 1];
      if (last && last.attempt === null) last.events.push(e);
      else groups.push({ attempt: null, first: byAttempt.size === 0, events: [e] });
    } else if (byAttempt.has(k)) {
      byAttempt.get(k).events.push(e);
    } else {
      const group = { attempt: k, events: [e] };
      byAttempt.set(k, group);
      groups.push(group);
    }
  }
  return groups;
}

function ending(events) {
  const ends = events.filter((e) => e.event in ENDINGS && e.event !== 'requeued');
  return ends.length ? ends[ends.length - 1] : null;
}

function eventRow(e, claimedAt) {
  const details = [];
  if (e.leaseUntil) details.push(h('span', {}, 'lease until ', timeEl(e.leaseUntil, true)));
  if (e.worker) details.push(h('span', {}, 'worker ', h('span', { class: 'mono' }, e.worker)));
  if (e.detail) details.push(h('span', { class: e.event === 'retried' || e.event === 'dead' ? 'error-text' : '' }, e.detail));
  const since = claimedAt && e.event !== 'claimed' ? h('span', { class: 'muted small' }, `+${duration(ms(e.at) - ms(claimedAt))}`) : null;
  return h('li', { class: ['event', `event-${e.event}`], 'data-event': e.event },
    h('span', { class: 'event-time' }, timeEl(e.at, true)),
    h('span', { class: 'event-name' }, EVENT_WORDS[e.event] || e.event),
    h('span', { class: 'event-detail' }, details.flatMap((d, i) => (i ? [' · ', d] : [d])), since ? [' ', since] : null));
}

function timeline(job) {
  if (!Array.isArray(job.history)) {
    return h('p', { class: 'muted' }, 'This server does not report a job history; the fields above show the latest attempt only.');
  }
  const groups = groupHistory(job.history);
  const effect = job.effect;
  const list = h('ol', { class: 'timeline', 'data-testid': 'timeline' });
  const words = [];
  let attemptCount = 0;
  for (const group of groups) {
    if (group.attempt === null) {
      const operator = group.events.filter((e) => e.event !== 'enqueued' && e.event !== 'promoted');
      if (!group.first && operator.length) words.push(operator.map((e) => EVENT_WORDS[e.event] || e.event).join(', '));
      list.append(h('li', { class: ['attempt', 'attempt-none'] },
        h('h3', {}, group.first ? 'Before any claim' : 'Between attempts'),
        h('ol', { class: 'events' }, group.events.map((e) => eventRow(e, null)))));
      continue;
    }
    attemptCount++;
    const k = group.attempt;
    const events = group.events;
    const claimed = events.find((e) => e.event === 'claimed');
    const extensions = events.filter((e) => e.event === 'extended');
    const lastLease = [...events].reverse().find((e) => e.leaseUntil);
    const end = ending(events);
    const worker = (claimed && claimed.worker) || (events.find((e) => e.worker) || {}).worker;
    // An effect another job applied (same idempotency key) was applied by none of this job's attempts.
    const applied = effect && !effect.appliedByJob && Number(effect.appliedByAttempt) === k;
    const heartbeats = extensions.reduce((n, e) => n + (parseInt(e.detail, 10) || 1), 0);
    const outcome = end ? ENDINGS[end.event] : (job.state === 'active' && k === Number(job.attempts) ? 'running now' : 'no ending recorded');
    words.push(`attempt ${k}: ${outcome}${applied ? ', effect applied' : ''}${end && end.detail && end.event !== 'completed' ? ` (${end.detail})` : ''}`);
    list.append(h('li', { class: ['attempt', end ? `ended-${end.event}` : 'ended-none', applied ? 'applied' : ''], 'data-testid': 'attempt', 'data-attempt': String(k) },
      h('div', { class: 'attempt-head' },
        h('h3', {}, `Attempt ${k}`),
        h('span', { class: ['badge', `badge-${end ? end.event : 'open'}`], 'data-testid': 'attempt-outcome' }, outcome)),
      h('dl', { class: 'facts' },
        h('div', {}, h('dt', {}, 'Token'), h('dd', { class: 'mono' }, String(k))),
        h('div', {}, h('dt', {}, 'Worker'), h('dd', { class: 'mono' }, worker || '—')),
        h('div', {}, h('dt', {}, 'Claimed at'), h('dd', {}, claimed ? timeEl(claimed.at) : '—')),
        h('div', {}, h('dt', {}, 'Lease deadline (server clock)'), h('dd', {}, lastLease ? timeEl(lastLease.leaseUntil) : '—')),
        h('div', {}, h('dt', {}, 'Extensions'), h('dd', {}, heartbeats ? `${heartbeats} heartbeat(s)` : 'none')),
        h('div', {}, h('dt', {}, 'Effect'), h('dd', { class: applied ? 'effect-yes' : 'muted' },
          applied ? ['applied by this attempt at ', timeEl(effect.appliedAt)] : 'not applied by this attempt'))),
      h('ol', { class: 'events' }, events.map((e) => eventRow(e, claimed ? claimed.at : null)))));
  }
  const summary = attemptCount > 1
    ? h('p', { class: 'why', 'data-testid': 'why-summary' }, `Delivered ${attemptCount} times: `, words.join('; then '), '.')
    : (attemptCount === 1 ? h('p', { class: 'why', 'data-testid': 'why-summary' }, `Delivered once: ${words.join('; then ')}.`)
      : h('p', { class: 'why muted', 'data-testid': 'why-summary' }, 'Not delivered yet.'));
  return [summary, list];
}

function fact(label, value, testid) {
  return h('div', {}, h('dt', {}, label), h('dd', testid ? { 'data-testid': testid } : {}, value));
}

/** The handler's latest progress report: a bar, the percent and message, and which attempt said so. */
function progressView(job) {
  const p = job.progress;
  if (!p) return h('span', { class: 'muted', 'data-testid': 'job-progress' }, '—');
  const current = job.state === 'active' && Number(p.attempt) === Number(job.attempts);
  return h('span', { class: 'progress', 'data-testid': 'job-progress' },
    h('progress', { max: '100', value: String(p.percent), 'aria-label': 'progress' }), ' ',
    h('span', { 'data-testid': 'job-progress-text' }, `${p.percent}%${p.message ? ` · ${p.message}` : ''}`),
    h('span', { class: 'muted small' }, current ? ' (now)' : ` (reported by attempt ${p.attempt})`));
}

export function jobPage(view, queue, id) {
  let stopped = false;
  let poll = null;
  const load = async () => {
    clearTimeout(poll);
    let job;
    try {
      job = await get(`/queues/${enc(queue)}/jobs/${enc(id)}`);
    } catch (e) {
      if (!stopped) replace(view, crumbs(queue, id), h('h1', {}, `Job #${id}`), h('p', { class: 'error', 'data-testid': 'job-error' }, describeError(e)));
      return;
    }
    if (stopped) return;
    render(job);
    // A running job's progress (and its lease) move: follow them live, once a second.
    if (job.state === 'active') poll = setTimeout(load, 1000);
  };

  const crumbs = () => h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Queues'), ' / ',
    h('a', { href: `#/queues/${enc(queue)}` }, queue), ' / ');

  const action = (label, path, question, confirmLabel, danger) => {
    const b = h('button', { type: 'button', class: ['button', danger ? 'danger' : ''], 'data-testid': `job-${path}` }, label);
    b.addEventListener('click', async () => {
      if (!(await confirmAction(question, confirmLabel))) return;
      b.disabled = true;
      try {
        const moved = await post(`/queues/${enc(queue)}/jobs/${enc(id)}/${path}`);
        if (moved.cancelRequested) {
          load();
          notify(`Job #${id}: cancel requested; its handler learns it with its next heartbeat.`, 'ok');
          return;
        }
        if (moved.to === 'deleted') location.hash = `#/queues/${enc(queue)}/${moved.from}`;
        else load();
        notify(`Job #${id}: ${moved.from} → ${moved.to}.`, 'ok');
      } catch (e) {
        notify(describeError(e), 'error');
        b.disabled = false;
      }
    });
    return b;
  };

  // A delayed job's new due time, from a local date-time field (sent as ms since the epoch; the
  // server judges it on its own clock, and a time already past makes the job pending now).
  const dueForm = (job) => {
    const input = h('input', { type: 'datetime-local', step: '1', 'data-testid': 'job-due-input', 'aria-label': 'New due time' });
    if (job.dueAt) {
      const d = new Date(job.dueAt);
      input.value = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
    }
    const b = h('button', { type: 'button', class: 'button', 'data-testid': 'job-due' }, 'Change due time');
    b.addEventListener('click', async () => {
      const runAt = new Date(input.value).getTime();
      if (!input.value || Number.isNaN(runAt)) { notify('Choose a due time first.', 'error'); return; }
      if (!(await confirmAction(`Make job #${id} due at ${new Date(runAt).toLocaleString()}?`, 'Change due time'))) return;
      b.disabled = true;
      try {
        const due = await put(`/queues/${enc(queue)}/jobs/${enc(id)}/due`, { runAt });
        load();
        notify(due.state === 'pending' ? `Job #${id}: delayed → pending (due now).` : `Job #${id}: due at ${new Date(due.dueAt).toLocaleString()}.`, 'ok');
      } catch (e) {
        notify(describeError(e), 'error');
        b.disabled = false;
      }
    });
    return h('span', { class: 'due-form' }, input, ' ', b);
  };

  const render = (job) => {
    const actions = [];
    if (job.state === 'delayed') {
      actions.push(action('Run now', 'promote', `Promote delayed job #${id}? It becomes pending now and runs as soon as a worker is free.`, 'Run now', false));
      actions.push(dueForm(job));
    }
    if (job.state === 'pending' || job.state === 'delayed') {
      actions.push(action('Cancel job', 'cancel', `Cancel job #${id}? It will not run.`, 'Cancel job', true));
    }
    if (job.state === 'waiting-children') {
      actions.push(action('Cancel flow', 'cancel', `Cancel flow parent #${id}? It will not run, and its children that have not finished are cancelled too.`, 'Cancel flow', true));
    }
    if (job.state === 'active' && !job.cancelRequestedAt) {
      actions.push(action('Request cancel', 'cancel', `Ask job #${id}'s handler to stop? It learns it with its next heartbeat; if it stops, its effect is rolled back and the job ends cancelled; if its effect commits first, the job ends completed.`, 'Request cancel', true));
    }
    if (job.state === 'dead') {
      actions.push(action('Retry job', 'retry', `Retry dead job #${id}? It goes back to pending with a fresh budget of attempts and runs again.`, 'Retry job', false));
    }
    if (['dead', 'completed', 'cancelled'].includes(job.state)) {
      actions.push(action('Delete job', 'delete', `Delete ${job.state} job #${id} for good? This cannot be undone.`, 'Delete job', true));
    }
    const refresh = h('button', { type: 'button', class: 'button', 'data-testid': 'job-refresh' }, 'Refresh');
    refresh.addEventListener('click', load);
    const payloadText = typeof job.payload === 'string' ? job.payload : JSON.stringify(job.payload, null, 2);
    replace(view,
      crumbs(),
      h('div', { class: 'page-head' },
        h('h1', {}, 'Job ', h('span', { class: 'mono' }, `#${job.id}`), ' ',
          h('span', { class: ['badge', `state-badge`, `state-${job.state}`], 'data-testid': 'job-state' }, job.state),
          job.state === 'active' && job.cancelRequestedAt
            ? [' ', h('span', { class: ['badge', 'badge-cancel-requested'], 'data-testid': 'job-cancel-requested', title: `requested ${new Date(job.cancelRequestedAt).toLocaleString()}` }, 'cancel requested')]
            : null),
        h('div', { class: 'page-tools' }, refresh, actions)),
      h('section', { class: 'card' },
        h('dl', { class: 'facts facts-wide' },
          fact('Queue', h('span', { class: 'mono' }, job.queue)),
          fact('Lane', h('span', { class: 'mono' }, job.lane ?? '—')),
          fact('Priority', h('span', { 'data-testid': 'job-priority' }, `${job.priority ?? 4} (0 lowest, 9 highest)`)),
          fact('Attempts', `${job.attempts} of ${job.maxAttempts}`, 'job-attempts'),
          fact('Created', timeEl(job.createdAt)),
          fact('Due', timeEl(job.dueAt), 'job-due-at'),
          fact('Claimed', timeEl(job.claimedAt)),
          fact('Lease until', timeEl(job.leaseUntil)),
          fact('Progress', progressView(job)),
          fact('Worker', h('span', { class: 'mono' }, job.worker ?? '—')),
          fact('Finished', timeEl(job.finishedAt)),
          fact('Idempotency key', h('span', { class: 'mono' }, job.idempotencyKey ?? '—')),
          fact('Dedupe key', h('span', { class: 'mono' }, job.dedupeKey ?? '—'), 'job-dedupe-key'),
          fact('Last error', h('span', { class: 'error-text' }, job.lastError ?? '—'), 'job-last-error'),
          fact('Note', job.note ?? '—')),
        h('p', { class: ['effect-row', job.effect ? 'effect-yes' : 'effect-no'], 'data-testid': 'effect-row' },
          !job.effect
            ? 'Effect: not applied (no effect recorded for this job).'
            : job.effect.appliedByJob
              ? ['Effect: applied by job ', h('a', { href: `#/jobs/${enc(queue)}/${enc(job.effect.appliedByJob)}`, class: 'mono', 'data-testid': 'effect-job-link' },
                  `#${job.effect.appliedByJob}`), ' (submitted with the same idempotency key), attempt ', String(job.effect.appliedByAttempt),
                ' at ', timeEl(job.effect.appliedAt), '; this job\'s handler does not run.']
              : ['Effect: applied by attempt ', String(job.effect.appliedByAttempt), ' at ', timeEl(job.effect.appliedAt), '.'])),
      job.flow ? [h('h2', { class: 'section-title' }, 'Flow'), flowSection(job)] : null,
      h('h2', { class: 'section-title' }, 'Attempts'),
      h('section', { class: 'card' }, timeline(job)),
      h('h2', { class: 'section-title' }, 'Result'),
      // Committed with the effect that stands for the job: none until then, or when its handler set none.
      'result' in job
        ? h('pre', { class: 'payload', 'data-testid': 'job-result', tabindex: '0' }, JSON.stringify(job.result, null, 2))
        : h('p', { class: 'muted', 'data-testid': 'job-result' }, job.effect ? 'No result: the handler set none.' : 'No result yet: no effect committed.'),
      h('h2', { class: 'section-title' }, 'Payload'),
      h('pre', { class: 'payload', 'data-testid': 'payload', tabindex: '0' }, payloadText));
    if (!isAdmin()) for (const b of actions) b.title = 'needs the admin role';
  };

  // One job of the flow's tree, with its children nested: its state, the outcome its parent
  // recorded, whether its parent still waits for it, and its committed result (cut when long).
  const flowNode = (n) => {
    const here = n.queue === queue && n.id === id;
    const result = n.result === undefined || n.result === null ? null : JSON.stringify(n.result);
    return h('li', { 'data-testid': 'flow-node', 'data-queue': n.queue, 'data-id': n.id ?? '', 'data-state': n.state ?? '',
      'data-waited-for': String(n.waitedFor), ...(here ? { 'aria-current': 'true' } : {}) },
      n.index === undefined || n.index === null ? 'root ' : `${n.index}. `,
      n.id
        ? (here ? h('strong', { class: 'mono' }, `${n.queue} #${n.id} (this job)`)
          : h('a', { href: `#/jobs/${enc(n.queue)}/${enc(n.id)}`, class: 'mono', 'data-testid': 'flow-node-link' }, `${n.queue} #${n.id}`))
        : `${n.queue} (not made yet)`,
      ' ', n.state ? h('span', { class: ['badge', 'state-badge', `state-${n.state}`] }, n.state) : h('span', { class: 'muted' }, n.id ? 'removed' : ''),
      n.outcome ? h('span', { class: 'muted' }, ` outcome ${n.outcome}`) : null,
      n.waitedFor ? h('span', { class: 'badge', 'data-testid': 'flow-waited-for' }, 'its parent waits for it') : null,
      result ? h('code', { class: 'mono', 'data-testid': 'flow-result', title: result }, ` result ${result.length > 120 ? result.slice(0, 120) + '…' : result}`) : null,
      n.children && n.children.length ? h('ul', { class: 'flow-tree' }, n.children.map(flowNode)) : null,
      n.truncated ? h('p', { class: 'muted' }, 'More children not shown (the tree shows at most 2,000 jobs).') : null);
  };

  // A job's place in its flow: up to its parent, down to its children (each one's state, and the
  // outcome its parent recorded; a child without one is a child the parent still waits for), and
  // the whole flow as a tree from its root.
  const flowSection = (job) => {
    const card = h('section', { class: 'card', 'data-testid': 'job-flow' });
    const up = job.flow.parent
      ? h('p', {}, 'Child ', String(job.flow.parent.index), ' (', job.flow.parent.onFailure, ') of flow parent ',
        h('a', { href: `#/jobs/${enc(job.flow.parent.queue)}/${enc(job.flow.parent.id)}`, class: 'mono', 'data-testid': 'flow-parent-link' },
          `${job.flow.parent.queue} #${job.flow.parent.id}`))
      : null;
    replace(card, up, h('p', { class: 'muted' }, 'Loading the flow…'));
    get(`/flows/${enc(queue)}/${enc(id)}`).then((flow) => {
      if (stopped) return;
      const waiting = flow.children.filter((c) => !c.outcome).length;
      const tree = h('div', {}, h('h3', {}, 'Whole flow'), h('ul', { class: 'flow-tree', 'data-testid': 'flow-tree' }, flowNode(flow.tree)));
      replace(card, up,
        flow.children.length ? h('p', {}, `${flow.children.length} children, `, waiting ? `${waiting} not yet settled` : 'all settled') : null,
        flow.children.length ? h('table', { class: 'table', 'data-testid': 'flow-children' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Child'), h('th', {}, 'State'), h('th', {}, 'Outcome'), h('th', {}, 'On failure'))),
          h('tbody', {}, flow.children.map((c) => h('tr', {},
            h('td', {}, String(c.index)),
            h('td', {}, c.id ? h('a', { href: `#/jobs/${enc(c.queue)}/${enc(c.id)}`, class: 'mono' }, `${c.queue} #${c.id}`) : `${c.queue} (not made yet)`),
            h('td', {}, c.state ? h('span', { class: ['badge', 'state-badge', `state-${c.state}`] }, c.state) : '—'),
            h('td', {}, c.outcome ?? 'waiting for it'),
            h('td', {}, c.onFailure))))) : null,
        tree);
    }).catch((e) => { if (!stopped) replace(card, up, h('p', { class: 'error-text' }, describeError(e))); });
    return card;
  };

  replace(view, crumbs(), h('h1', {}, `Job #${id}`), h('p', { class: 'muted' }, 'Loading…'));
  load();
  return () => { stopped = true; clearTimeout(poll); };
}

