// One queue: jobs by state (tabs), paging, open by id, bulk retry / delete of dead jobs, pause / resume,
// its caps and rate limits (shown to all, changed by admins), its shards, and its job events live.
import { get, post, put, enc, isAdmin, openJobEvents } from '../api.js';
import { h, replace, number, timeEl, confirmAction, notify, describeError } from '../dom.js';
import { STATES, limitsText, limitsSourceText } from './overview.js';

const PAGE = 50;

export function queuePage(view, queue, state) {
  if (!STATES.includes(state)) state = 'pending';
  let stopped = false;

  const status = h('span', { 'data-testid': 'queue-status' });
  const limitsLine = h('p', { class: 'muted small', 'data-testid': 'queue-limits' });
  const limitsEditor = limitsForm(queue, (q) => renderQueue(q));
  const pauseButton = h('button', { type: 'button', class: 'button', 'data-testid': 'pause-toggle', disabled: true }, 'Pause');
  const tabs = h('nav', { class: 'tabs', 'aria-label': 'Job states' });
  const openForm = h('form', { class: 'inline-form', 'data-testid': 'open-job-form' },
    h('label', { for: 'open-job-id' }, 'Open job by id'),
    h('input', { id: 'open-job-id', name: 'id', type: 'text', inputmode: 'numeric', autocomplete: 'off', required: true, size: 10 }),
    h('button', { type: 'submit', class: 'button' }, 'Open'));
  openForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = openForm.elements.id.value.trim();
    if (id) location.hash = `#/jobs/${enc(queue)}/${enc(id)}`;
  });

  const bulkBar = h('div', { class: 'bulk-bar', hidden: state !== 'dead' });
  const tbody = h('tbody', { 'data-testid': 'job-rows' });
  const selectAll = h('input', { type: 'checkbox', 'aria-label': 'Select all jobs on this page', 'data-testid': 'select-all' });
  const table = h('table', { class: 'jobs', 'data-testid': 'jobs-table' },
    h('caption', { class: 'visually-hidden' }, `${state} jobs of queue ${queue}`),
    h('thead', {}, h('tr', {},
      state === 'dead' ? h('th', { scope: 'col', class: 'select' }, selectAll) : null,
      h('th', { scope: 'col' }, 'Job'), h('th', { scope: 'col' }, 'Lane'), h('th', { scope: 'col' }, 'Priority'),
      h('th', { scope: 'col' }, 'Attempts'),
      h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Finished'), h('th', { scope: 'col' }, 'Last error'))),
    tbody);
  const more = h('button', { type: 'button', class: 'button', hidden: true, 'data-testid': 'load-more' }, 'Load more');
  const empty = h('p', { class: 'muted', hidden: true, 'data-testid': 'no-jobs' }, `No ${state} jobs.`);
  const liveEvents = jobEventsPanel(queue);
  const shards = shardsPanel();

  replace(view,
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Queues'), ' / '),
    h('div', { class: 'page-head' }, h('h1', {}, 'Queue ', h('span', { class: 'mono' }, queue)),
      h('div', { class: 'page-tools' }, status, pauseButton)),
    limitsLine,
    isAdmin() ? limitsEditor.element : null,
    tabs,
    h('div', { class: 'toolbar' }, openForm, bulkBar),
    table, empty, more,
    shards.element,
    liveEvents.element);

  // ---- header: counts in the tabs, paused or not --------------------------------------------
  let paused = false;
  const renderQueue = (q) => {
    paused = !!q.paused;
    replace(status, q.paused
      ? h('span', { class: ['badge', 'badge-paused'] }, 'paused: no jobs are handed out')
      : h('span', { class: ['badge', 'badge-running'] }, 'running'));
    const limits = limitsText(q.limits);
    const source = limitsSourceText(q.limitsSource);
    limitsEditor.show(q.limits);
    limitsLine.textContent = (limits
      ? `Limits: ${limits}.` + (q.lanesHeld ? ` ${number(q.lanesHeld)} lane(s) wait for their lane limit; their jobs stay pending.` : '')
      : 'No caps or rate limits.') + (source ? ` (${source}.)` : '')
      + (q.shards > 1 ? ` Sharded over ${number(q.shards)} shards: lane limits hold per shard for jobs without a lane.` : '');
    pauseButton.textContent = q.paused ? 'Resume' : 'Pause';
    pauseButton.disabled = false;
    if (tabs.children.length === STATES.length) {
      // Refresh the counts in place: a focused tab keeps its focus.
      STATES.forEach((st, i) => { tabs.children[i].querySelector('.tab-count').textContent = number(q.counts ? q.counts[st] : 0); });
      return;
    }
    replace(tabs, STATES.map((st) => h('a', {
      href: `#/queues/${enc(queue)}/${st}`, class: ['tab', `state-${st}`],
      'aria-current': st === state ? 'page' : null, 'data-testid': `tab-${st}`,
    }, st, ' ', h('span', { class: 'tab-count' }, number(q.counts ? q.counts[st] : 0)))));
  };
  const loadShards = () => get(`/queues/${enc(queue)}/shards`).then((v) => { if (!stopped) shards.render(v.shards); })
    .catch((e) => { if (!stopped) shards.failed(describeError(e)); });
  const loadQueue = () => {
    loadShards();
    return get(`/queues/${enc(queue)}`).then((q) => { if (!stopped) renderQueue(q); })
      .catch((e) => { if (!stopped) replace(status, h('span', { class: 'error' }, describeError(e))); });
  };
  loadQueue();
  const queueTimer = setInterval(loadQueue, 5000);

  pauseButton.addEventListener('click', async () => {
    const action = paused ? 'resume' : 'pause';
    if (action === 'pause' && !(await confirmAction(
      `Pause queue "${queue}"? Workers stop receiving its jobs until it is resumed; submissions and running jobs go on.`, 'Pause queue'))) return;
    pauseButton.disabled = true;
    try {
      renderQueue(await post(`/queues/${enc(queue)}/${action}`));
      loadShards();
      notify(action === 'pause' ? `Queue ${queue} paused.` : `Queue ${queue} resumed.`, 'ok');
    } catch (e) {
      notify(describeError(e), 'error');
      pauseButton.disabled = false;
    }
  });

  // ---- the job list ----------------------------------------------------------------------
  const selected = new Set();
  const checkboxes = new Map();
  let next = null;
  const bulkCount = h('span', { class: 'muted', 'data-testid': 'selected-count' }, '0 selected');
  const retryButton = h('button', { type: 'button', class: 'button', disabled: true, 'data-testid': 'bulk-retry' }, 'Retry selected');
  const deleteButton = h('button', { type: 'button', class: ['button', 'danger'], disabled: true, 'data-testid': 'bulk-delete' }, 'Delete selected');
  replace(bulkBar, bulkCount, retryButton, deleteButton);
  const updateBulk = () => {
    bulkCount.textContent = `${selected.size} selected`;
    retryButton.disabled = selected.size === 0;
    deleteButton.disabled = selected.size === 0;
    const all = checkboxes.size > 0 && selected.size === checkboxes.size;
    selectAll.checked = all;
    selectAll.indeterminate = selected.size > 0 && !all;
  };
  selectAll.addEventListener('change', () => {
    for (const [id, box] of checkboxes) {
      box.checked = selectAll.checked;
      if (selectAll.checked) selected.add(id); else selected.delete(id);
    }
    updateBulk();
  });

  const row = (job) => {
    const cells = [];
    if (state === 'dead') {
      const box = h('input', { type: 'checkbox', 'aria-label': `Select job ${job.id}`, 'data-testid': 'select-job', 'data-id': job.id });
      box.addEventListener('change', () => { if (box.checked) selected.add(job.id); else selected.delete(job.id); updateBulk(); });
      checkboxes.set(job.id, box);
      cells.push(h('td', { class: 'select' }, box));
    }
    cells.push(
      h('td', {}, h('a', { href: `#/jobs/${enc(queue)}/${enc(job.id)}`, class: 'mono', 'data-testid': 'job-link', 'data-id': job.id }, `#${job.id}`)),
      h('td', { class: 'mono' }, job.lane ?? '—'),
      h('td', { 'data-testid': 'job-priority' }, String(job.priority ?? 4)),
      h('td', {}, `${job.attempts} / ${job.maxAttempts}`),
      h('td', {}, timeEl(job.createdAt)),
      h('td', {}, timeEl(job.finishedAt)),
      h('td', { class: 'error-text' }, job.lastError ?? ''));
    return h('tr', { 'data-id': job.id }, cells);
  };

  const loadPage = async (cursor) => {
    more.disabled = true;
    try {
      const params = new URLSearchParams({ state, limit: String(PAGE) });
      if (cursor) params.set('cursor', cursor);
      const page = await get(`/queues/${enc(queue)}/jobs?${params}`);
      if (stopped) return;
      for (const job of page.jobs || []) tbody.append(row(job));
      next = page.next || null;
      more.hidden = !next;
      empty.hidden = tbody.children.length > 0;
      updateBulk();
    } catch (e) {
      if (!stopped) notify(describeError(e), 'error');
    } finally {
      more.disabled = false;
    }
  };
  const reload = () => {
    replace(tbody);
    selected.clear();
    checkboxes.clear();
    return loadPage(null);
  };
  more.addEventListener('click', () => loadPage(next));
  reload();

  // ---- bulk actions on dead jobs: the per-job endpoints, one after another ------------------
  const bulk = async (verb, path, past) => {
    const ids = [...selected];
    if (!ids.length) return;
    const ok = await confirmAction(verb === 'retry'
      ? `Retry ${ids.length} dead job(s) of "${queue}"? Each goes back to pending with a fresh budget of attempts, and may run again.`
      : `Delete ${ids.length} dead job(s) of "${queue}" for good? This cannot be undone.`,
    verb === 'retry' ? `Retry ${ids.length}` : `Delete ${ids.length}`);
    if (!ok) return;
    retryButton.disabled = true;
    deleteButton.disabled = true;
    let done = 0;
    const failures = [];
    for (const id of ids) {
      try {
        await post(`/queues/${enc(queue)}/jobs/${enc(id)}/${path}`);
        done++;
      } catch (e) {
        failures.push(`#${id}: ${describeError(e)}`);
      }
    }
    if (done) notify(`${done} job(s) ${past}.`, 'ok');
    if (failures.length) notify(`${failures.length} failed: ${failures.slice(0, 5).join('; ')}`, 'error');
    await reload();
    loadQueue();
  };
  retryButton.addEventListener('click', () => bulk('retry', 'retry', 'sent back to pending'));
  deleteButton.addEventListener('click', () => bulk('delete', 'delete', 'deleted'));
  if (!isAdmin()) {
    pauseButton.title = 'needs the admin role';
  }

  return () => { stopped = true; clearInterval(queueTimer); liveEvents.stop(); };
}

// The queue's shards (GET /api/queues/{q}/shards): where each lives (hash tag, slot, the master serving it) and what
// it holds; one row for a queue of one shard. A shard whose settings version is older than shard 0's still enforces
// older settings (a pause, a limit) until the shard-settings maintenance duty copies them: it is marked.
function shardsPanel() {
  const rows = h('tbody', { 'data-testid': 'shard-rows' });
  const note = h('p', { class: 'muted small', 'data-testid': 'shards-note' }, 'Loading…');
  const element = h('section', { class: 'shards', 'data-testid': 'shards-panel' },
    h('h2', {}, 'Shards'), note,
    h('table', { class: 'jobs', 'data-testid': 'shards-table' },
      h('caption', { class: 'visually-hidden' }, 'Shards of this queue'),
      h('thead', {}, h('tr', {}, ['Shard', 'Tag', 'Slot', 'Master', 'Pending', 'Active', 'Delayed', 'Dead', 'Paused', 'Settings version']
        .map((title) => h('th', { scope: 'col' }, title)))),
      rows));
  const count = (shard, st) => h('td', { 'data-testid': `shard-${st}` }, number(shard.counts ? shard.counts[st] : 0));
  const version = (shard) => {
    if (shard.settingsVersion === undefined || shard.settingsVersion === null) return h('td', { 'data-testid': 'shard-settings' }, '—');
    return h('td', { 'data-testid': 'shard-settings', 'data-behind': String(!!shard.settingsBehind) }, number(shard.settingsVersion),
      shard.settingsBehind
        ? [' ', h('span', { class: ['badge', 'badge-paused'], title: 'older than shard 0\'s settings: the shard-settings duty copies them' },
          'behind shard 0')]
        : null);
  };
  const row = (shard) => h('tr', { 'data-testid': 'shard-row', 'data-shard': String(shard.shard), class: shard.settingsBehind ? 'behind' : null },
    h('td', {}, String(shard.shard)),
    h('td', { class: 'mono', 'data-testid': 'shard-tag' }, shard.tag),
    h('td', { 'data-testid': 'shard-slot' }, String(shard.slot)),
    h('td', { class: 'mono', 'data-testid': 'shard-master' }, shard.master ?? 'no master serves this slot'),
    count(shard, 'pending'), count(shard, 'active'), count(shard, 'delayed'), count(shard, 'dead'),
    h('td', { 'data-testid': 'shard-paused' }, shard.paused ? 'paused' : 'no'),
    version(shard));
  return {
    element,
    render(list) {
      const shards = Array.isArray(list) ? list : [];
      const behind = shards.filter((s) => s.settingsBehind).length;
      note.textContent = (shards.length > 1 ? `${number(shards.length)} shards, each a hash tag on its own slot.` : 'One shard: the queue is not sharded.')
        + (behind ? ` ${number(behind)} shard(s) hold older settings than shard 0 until the next maintenance pass copies them.` : '');
      replace(rows, shards.map(row));
    },
    failed(message) { note.textContent = message; },
  };
}

// The most events the live list keeps on screen (the newest first); older ones drop off the end.
const LIVE_EVENTS_SHOWN = 200;

// The queue's job events as they happen (GET /api/queues/{q}/events), newest first, filtered by
// job, lane and event type on the server. Changing a filter opens a new stream from now on.
function jobEventsPanel(queue) {
  const status = h('span', { class: ['live', 'live-off'], 'data-testid': 'job-events-status' }, 'connecting…');
  const list = h('tbody', { 'data-testid': 'job-events' });
  const form = h('form', { class: 'inline-form', 'data-testid': 'job-events-filters' },
    h('label', { for: 'job-events-job' }, 'Job'),
    h('input', { id: 'job-events-job', name: 'job', type: 'text', inputmode: 'numeric', size: 8, autocomplete: 'off' }),
    h('label', { for: 'job-events-lane' }, 'Lane'),
    h('input', { id: 'job-events-lane', name: 'lane', type: 'text', size: 10, autocomplete: 'off' }),
    h('label', { for: 'job-events-event' }, 'Events'),
    h('input', { id: 'job-events-event', name: 'event', type: 'text', size: 18, autocomplete: 'off', placeholder: 'e.g. dead,retried' }),
    h('button', { type: 'submit', class: 'button', 'data-testid': 'job-events-apply' }, 'Filter'));
  const element = h('section', { class: 'job-events', 'data-testid': 'job-events-panel' },
    h('h2', {}, 'Job events ', status), form,
    h('table', { class: 'jobs' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'At'), h('th', { scope: 'col' }, 'Job'), h('th', { scope: 'col' }, 'Event'),
        h('th', { scope: 'col' }, 'Lane'), h('th', { scope: 'col' }, 'Attempt'), h('th', { scope: 'col' }, 'Detail'))),
      list));
  let source = null;
  const show = (text, state) => { status.textContent = text; status.className = `live live-${state}`; };
  const open = () => {
    if (source) source.close();
    const filters = { job: form.elements.job.value.trim(), lane: form.elements.lane.value.trim(), event: form.elements.event.value.trim() };
    source = openJobEvents(queue, filters);
    source.addEventListener('open', () => show('live', 'on'));
    source.addEventListener('job', (message) => {
      let e;
      try { e = JSON.parse(message.data); } catch (ignored) { return; }
      list.prepend(h('tr', { 'data-testid': 'job-event', 'data-event': e.event, 'data-job': e.jobId },
        h('td', {}, timeEl(e.at)),
        h('td', {}, h('a', { href: `#/jobs/${enc(queue)}/${enc(e.jobId)}` }, `#${e.jobId}`)),
        h('td', {}, h('span', { class: ['badge', `event-${e.event}`] }, e.event)),
        h('td', {}, e.lane || '—'), h('td', {}, e.attempt === undefined || e.attempt === null ? '—' : String(e.attempt)),
        h('td', { class: 'small' }, e.detail || '')));
      while (list.children.length > LIVE_EVENTS_SHOWN) list.lastElementChild.remove();
    });
    // A bad filter is answered 400 and EventSource gives up (CLOSED); a dropped connection reconnects by itself.
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) show('stopped: check the filters', 'off');
      else show('reconnecting…', 'off');
    });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    replace(list);
    open();
  });
  open();
  return { element, stop() { if (source) source.close(); } };
}

// The limits editor: empty fields are no limit; Save replaces all of them (PUT), so the form
// always sends the whole set. Refilled from each refresh of the queue unless it is being edited.
function limitsForm(queue, onSaved) {
  const field = (name, label, hint) => h('label', { class: 'limit-field' }, label, ' ',
    h('input', { name, type: 'number', min: '1', step: '1', inputmode: 'numeric', size: 8, 'data-testid': `limit-${name}`, title: hint }));
  const form = h('form', { class: 'limits-form', 'data-testid': 'limits-form' },
    field('maxActive', 'Active at most', 'jobs of this queue running at once, on all servers'),
    field('rateStarts', 'Started at most', 'jobs started per window'), field('rateWindowMs', 'per ms', 'the window, in ms'),
    field('laneMaxActive', 'Per lane: active at most', 'jobs of one lane running at once'),
    field('laneRateStarts', 'started at most', 'jobs of one lane started per window'), field('laneRateWindowMs', 'per ms', 'the window, in ms'),
    h('button', { type: 'submit', class: 'button', 'data-testid': 'limits-save' }, 'Save limits'));
  const details = h('details', { class: 'limits-editor', 'data-testid': 'limits-editor' }, h('summary', {}, 'Change limits'), form);
  const value = (name) => {
    const text = form.elements[name].value.trim();
    return text === '' ? null : Number(text);
  };
  const rate = (starts, windowMs) => (value(starts) === null && value(windowMs) === null ? null
    : { starts: value(starts), windowMs: value(windowMs) });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {
      maxActive: value('maxActive'), rate: rate('rateStarts', 'rateWindowMs'),
      laneMaxActive: value('laneMaxActive'), laneRate: rate('laneRateStarts', 'laneRateWindowMs'),
    };
    form.querySelector('button').disabled = true;
    try {
      await put(`/queues/${enc(queue)}/limits`, body);
      onSaved(await get(`/queues/${enc(queue)}`));
      notify(`Limits of ${queue} saved.`, 'ok');
    } catch (err) {
      notify(describeError(err), 'error');
    } finally {
      form.querySelector('button').disabled = false;
    }
  });
  const set = (name, v) => { form.elements[name].value = v === null || v === undefined ? '' : String(v); };
  return {
    element: details,
    show(limits) {
      if (details.open && form.contains(document.activeElement)) return;
      const l = limits || {};
      set('maxActive', l.maxActive);
      set('rateStarts', l.rate?.starts);
      set('rateWindowMs', l.rate?.windowMs);
      set('laneMaxActive', l.laneMaxActive);
      set('laneRateStarts', l.laneRate?.starts);
      set('laneRateWindowMs', l.laneRate?.windowMs);
    },
  };
}
