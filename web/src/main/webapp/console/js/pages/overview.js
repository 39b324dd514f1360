// Overview: every queue's counts per state, live over Server-Sent Events; the resource adapter's outboxes;
// throughput over the last hour.
import { get, post, openEvents, enc, isAdmin } from '../api.js';
import { h, replace, number, describeError, time, duration, timeEl, confirmAction, notify } from '../dom.js';
import { lineChart } from '../charts.js';

export const STATES = ['pending', 'delayed', 'active', 'completed', 'dead', 'cancelled', 'waiting-children'];

// A queue's caps and rate limits in words, or null when it has none.
export function limitsText(limits) {
  if (!limits) return null;
  const rate = (r) => `at most ${number(r.starts)} started per ${duration(r.windowMs)}`;
  const parts = [];
  if (limits.maxActive) parts.push(`at most ${number(limits.maxActive)} active`);
  if (limits.rate) parts.push(rate(limits.rate));
  if (limits.laneMaxActive) parts.push(`per lane at most ${number(limits.laneMaxActive)} active`);
  if (limits.laneRate) parts.push(`per lane ${rate(limits.laneRate)}`);
  return parts.length ? parts.join(' · ') : null;
}

// Which set the limits in force: the last change wins, so limits set over the API stand until the configuration
// changes them.
export function limitsSourceText(source) {
  if (source === 'api') return 'set over the API; they stand until the configuration changes its limits';
  if (source === 'config') return 'from configuration';
  return null;
}

function queueCard(q) {
  const limits = limitsText(q.limits);
  return h('article', { class: 'card queue-card', 'data-testid': 'queue-card', 'data-queue': q.name },
    h('header', { class: 'card-head' },
      h('h2', {}, h('a', { href: `#/queues/${enc(q.name)}`, 'data-testid': 'queue-link' }, q.name)),
      q.paused
        ? h('span', { class: ['badge', 'badge-paused'], 'data-testid': 'queue-paused' }, 'paused')
        : h('span', { class: ['badge', 'badge-running'], 'data-testid': 'queue-running' }, 'running')),
    h('dl', { class: 'counts' }, STATES.map((state) => h('div', { class: ['count', `state-${state}`] },
      h('dt', {}, h('a', { href: `#/queues/${enc(q.name)}/${state}` }, state)),
      h('dd', { 'data-testid': `count-${state}` }, number(q.counts ? q.counts[state] : 0))))),
    h('p', { class: 'muted small', 'data-testid': 'queue-lanes' }, `${number(q.total)} jobs in all · ${number(q.lanesWithWork)} lane(s) with work`
      + (q.lanesHeld ? ` · ${number(q.lanesHeld)} held by a lane limit` : '')),
    limits ? h('p', { class: 'muted small', 'data-testid': 'queue-limits' }, `Limits: ${limits}`) : null);
}

// One row per outbox the resource adapter relays: rows waiting for Valkey, how old the oldest is, and the dead
// rows (refused by Valkey at every try), which follow in a table of their own per outbox.
function outboxTable(outboxes, reload) {
  if (!Array.isArray(outboxes) || outboxes.length === 0) {
    return h('p', { class: 'muted', 'data-testid': 'outboxes-none' }, 'No outbox is being relayed (no resource adapter reports one).');
  }
  return [
    h('table', { class: 'jobs', 'data-testid': 'outboxes' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Data source'), h('th', {}, 'Waiting rows'), h('th', {}, 'Oldest row'), h('th', {}, 'Dead rows'),
        h('th', {}, 'Reported'))),
      h('tbody', {}, outboxes.map((o) => h('tr', { 'data-testid': 'outbox', 'data-source': o.dataSource },
        h('td', {}, o.dataSource),
        h('td', { 'data-testid': 'outbox-depth' }, number(o.depth)),
        h('td', { 'data-testid': 'outbox-oldest' }, o.depth > 0 ? duration(o.oldestAgeMs) : '—'),
        h('td', { 'data-testid': 'outbox-dead', class: o.dead > 0 ? 'error' : null }, number(o.dead || 0)),
        h('td', {}, time(o.reportedAt)))))),
    outboxes.filter((o) => o.dead > 0).map((o) => deadRowsTable(o, reload)),
  ];
}

// An outbox's dead rows (the oldest 100), each with its last refusal and, for admins, Retry and Drop: the
// command waits in Valkey until a relay of that outbox carries it out at its next sweep.
function deadRowsTable(outbox, reload) {
  const listed = outbox.deadRows || [];
  const command = (row, verb, label, question, danger) => {
    const b = h('button', { type: 'button', class: ['button', 'small', danger ? 'danger' : ''], 'data-testid': `dead-row-${verb}` }, label);
    if (!isAdmin()) b.title = 'needs the admin role';
    if (row.requested) b.disabled = true;
    b.addEventListener('click', async () => {
      if (!(await confirmAction(question, label))) return;
      b.disabled = true;
      try {
        await post(`/outboxes/dead/${enc(row.id)}/${verb}?dataSource=${enc(outbox.dataSource)}`);
        notify(`Outbox ${outbox.dataSource}, row ${row.id}: ${verb} requested; a relay carries it out at its next sweep.`, 'ok');
        reload();
      } catch (e) {
        notify(describeError(e), 'error');
        b.disabled = false;
      }
    });
    return b;
  };
  return h('section', { class: 'card', 'data-testid': 'dead-rows', 'data-source': outbox.dataSource },
    h('h3', {}, `Dead rows of ${outbox.dataSource}: ${number(outbox.dead)}`
      + (outbox.dead > listed.length ? ` (the oldest ${number(listed.length)} shown)` : '')),
    h('p', { class: 'muted small' }, 'Valkey refused these rows at every try; no relay takes them again until an admin retries or drops them.'),
    h('table', { class: 'jobs' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Row'), h('th', {}, 'Queue'), h('th', {}, 'Refusals'), h('th', {}, 'Written'), h('th', {}, 'Dead since'),
        h('th', {}, 'Last error'), h('th', {}, ''))),
      h('tbody', {}, listed.map((row) => h('tr', { 'data-testid': 'dead-row', 'data-id': String(row.id) },
        h('td', { class: 'mono' }, String(row.id)),
        h('td', { class: 'mono' }, row.queue),
        h('td', {}, number(row.refusals)),
        h('td', {}, timeEl(row.createdAt)),
        h('td', {}, timeEl(row.deadAt)),
        h('td', { class: 'error-text', 'data-testid': 'dead-row-error' }, row.lastError || '—'),
        h('td', {}, row.requested
          ? h('span', { class: 'muted small', 'data-testid': 'dead-row-requested' }, `${row.requested} requested`)
          : [
            command(row, 'retry', 'Retry', `Retry outbox row ${row.id} (queue "${row.queue}") of ${outbox.dataSource}? The relays try it again at their next sweep, with a fresh budget of tries.`, false),
            ' ',
            command(row, 'drop', 'Drop', `Drop outbox row ${row.id} (queue "${row.queue}") of ${outbox.dataSource} for good? Its job is never submitted. This cannot be undone.`, true),
          ]))))));
}

export function overviewPage(view) {
  const live = h('span', { class: ['live', 'live-off'], 'data-testid': 'live-status' }, 'connecting…');
  const updated = h('span', { class: 'muted small' });
  const cards = h('div', { class: 'cards', 'data-testid': 'queue-cards', 'aria-live': 'off' }, h('p', { class: 'muted' }, 'Loading queues…'));
  const charts = h('div', { class: 'charts', 'data-testid': 'charts' }, h('p', { class: 'muted' }, 'Loading the last hour…'));
  const outboxes = h('div', { 'data-testid': 'outbox-section' }, h('p', { class: 'muted' }, 'Loading outboxes…'));
  replace(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Queues'), h('div', { class: 'page-tools' }, live, ' ', updated)),
    cards,
    h('h2', { class: 'section-title' }, 'Outboxes (jobs enqueued in transactions, waiting for Valkey)'),
    outboxes,
    h('h2', { class: 'section-title' }, 'Throughput and failures, last 60 minutes'),
    charts);

  let stopped = false;
  const render = (queues) => {
    if (stopped) return;
    if (!Array.isArray(queues) || queues.length === 0) {
      replace(cards, h('p', { class: 'muted' }, 'No queues are served by this deployment.'));
    } else {
      // Same queues as shown: update the cards in place, so keyboard focus and selection survive the live updates.
      const shown = [...cards.querySelectorAll('[data-testid=queue-card]')];
      const same = shown.length === queues.length && shown.every((card, i) => card.dataset.queue === queues[i].name);
      if (same) {
        queues.forEach((q, i) => {
          const fresh = queueCard(q);
          const card = shown[i];
          for (const state of STATES) {
            card.querySelector(`[data-testid=count-${state}]`).textContent = fresh.querySelector(`[data-testid=count-${state}]`).textContent;
          }
          const badge = card.querySelector('.badge');
          badge.replaceWith(fresh.querySelector('.badge'));
          card.querySelector('[data-testid=queue-lanes]').textContent = fresh.querySelector('[data-testid=queue-lanes]').textContent;
          card.querySelector('[data-testid=queue-limits]')?.remove();
          const limits = fresh.querySelector('[data-testid=queue-limits]');
          if (limits) card.append(limits);
        });
      } else {
        replace(cards, queues.map(queueCard));
      }
    }
    updated.textContent = `updated ${time(new Date().toISOString())}`;
  };
  const loadOnce = () => get('/queues').then(render).catch((e) => {
    if (!stopped) replace(cards, h('p', { class: 'error' }, describeError(e)));
  });
  loadOnce();

  // Live counts: SSE; when the stream is unavailable, poll every 5 s instead.
  let source = null;
  let poll = null;
  const startPolling = () => {
    if (poll || stopped) return;
    live.textContent = 'polling every 5 s';
    live.className = 'live live-poll';
    poll = setInterval(loadOnce, 5000);
  };
  try {
    source = openEvents();
    source.addEventListener('stats', (event) => {
      try {
        render(JSON.parse(event.data));
        live.textContent = 'live';
        live.className = 'live live-on';
        if (poll) { clearInterval(poll); poll = null; }
      } catch (ignored) { /* a malformed frame: keep the last good view */ }
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) startPolling();
      else { live.textContent = 'reconnecting…'; live.className = 'live live-off'; }
    });
    source.addEventListener('open', () => { live.textContent = 'live'; live.className = 'live live-on'; });
  } catch (e) {
    startPolling();
  }

  const loadHistory = () => get('/stats/history').then((history) => {
    if (stopped) return;
    const names = Object.keys(history || {}).sort();
    if (!names.length) {
      replace(charts, h('p', { class: 'muted' }, 'No history yet.'));
      return;
    }
    replace(charts, names.map((name) => {
      const rows = history[name] || [];
      const minutes = rows.map((r) => r.minute);
      return h('section', { class: 'card chart-card', 'data-testid': 'chart', 'data-queue': name },
        h('h3', {}, name),
        lineChart(`Queue ${name}: jobs completed and failed per minute, last hour`, minutes, [
          { name: 'completed', cls: 'series-completed', values: rows.map((r) => r.completed || 0) },
          { name: 'failed', cls: 'series-failed', values: rows.map((r) => r.failed || 0) },
        ]));
    }));
  }).catch((e) => {
    if (!stopped) replace(charts, h('p', { class: 'muted' }, `Charts unavailable: ${describeError(e)}`));
  });
  loadHistory();
  const historyTimer = setInterval(loadHistory, 30000);

  const loadOutboxes = () => get('/outboxes').then((list) => {
    if (!stopped) replace(outboxes, outboxTable(list, loadOutboxes));
  }).catch((e) => {
    if (!stopped) replace(outboxes, h('p', { class: 'muted' }, `Outboxes unavailable: ${describeError(e)}`));
  });
  loadOutboxes();
  const outboxTimer = setInterval(loadOutboxes, 5000);

  return () => {
    stopped = true;
    if (source) source.close();
    if (poll) clearInterval(poll);
    clearInterval(historyTimer);
    clearInterval(outboxTimer);
  };
}
