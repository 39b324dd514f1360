// Recurring jobs: every schedule with its next and last firing and the job the last one made,
// pause / resume; one schedule's definition and its recent firings, each with its job.
import { get, post, enc, isAdmin } from '../api.js';
import { h, replace, number, timeEl, duration, time, confirmAction, notify, describeError } from '../dom.js';

const EVENT_WORDS = {
  fired: 'fired: job made',
  duplicate: 'fired: its job already existed, no second one',
  skipped: 'skipped',
};

const schedulePath = (s) => `/schedules/${enc(s.queue)}/${enc(s.name)}`;
const scheduleHref = (s) => `#/schedules/${enc(s.queue)}/${enc(s.name)}`;

/** "0 3 * * *" for a cron schedule, "every 1 min 0 s" for an interval one. */
export function when(s) {
  return s.kind === 'cron' ? s.cron : `every ${duration(s.intervalMs)}`;
}

function jobLink(queue, id) {
  return id ? h('a', { href: `#/jobs/${enc(queue)}/${enc(id)}`, class: 'mono', 'data-testid': 'schedule-job' }, `#${id}`)
    : h('span', { class: 'muted' }, '—');
}

function stateBadge(s) {
  return s.paused ? h('span', { class: ['badge', 'badge-paused'], 'data-testid': 'schedule-state' }, 'paused')
    : h('span', { class: ['badge', 'badge-running'], 'data-testid': 'schedule-state' }, 'running');
}

/** Pause (after confirming) or resume the schedule; calls done with the schedule as it is now. */
function pauseToggle(s, done) {
  const button = h('button', { type: 'button', class: 'button', 'data-testid': 'schedule-pause-toggle' }, s.paused ? 'Resume' : 'Pause');
  if (!isAdmin()) {
    button.disabled = true;
    button.title = 'needs the admin role';
    return button;
  }
  button.addEventListener('click', async () => {
    const action = s.paused ? 'resume' : 'pause';
    if (action === 'pause' && !(await confirmAction(
      `Pause schedule "${s.name}" of queue "${s.queue}"? It makes no jobs until resumed, and the slots that come due meanwhile are skipped.`,
      'Pause schedule'))) return;
    button.disabled = true;
    try {
      const now = await post(`${schedulePath(s)}/${action}`);
      notify(action === 'pause' ? `Schedule ${s.name} paused.` : `Schedule ${s.name} resumed.`, 'ok');
      done(now);
    } catch (e) {
      notify(describeError(e), 'error');
      button.disabled = false;
    }
  });
  return button;
}

/** Gives the focus back to the schedule's pause / resume button after the page was rebuilt under it. */
function focusToggle(within, s) {
  for (const button of within.querySelectorAll('[data-testid=schedule-pause-toggle]')) {
    const row = button.closest('[data-testid=schedule-row]');
    if (!row || (row.dataset.name === s.name && row.dataset.queue === s.queue)) { button.focus(); return; }
  }
}

export function schedulesPage(view) {
  let stopped = false;
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading schedules…'));
  const updated = h('span', { class: 'muted small', 'data-testid': 'schedules-updated' });
  replace(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Schedules'), h('div', { class: 'page-tools' }, updated)),
    h('p', { class: 'muted' }, 'Recurring jobs: each slot of a schedule makes exactly one job, whichever server fires it. '
      + 'Defined in configuration or through the API (PUT /api/schedules/{queue}/{name}).'),
    body);

  // force: after an action of this page, whose button has the focus.
  const load = (force = false) => get('/schedules').then((schedules) => {
    if (stopped) return;
    // Do not rebuild the table under a keyboard user's focus; the next refresh catches up.
    if (!force && body.contains(document.activeElement) && document.activeElement !== body) return;
    updated.textContent = `updated ${time(new Date().toISOString())}`;
    if (!Array.isArray(schedules) || schedules.length === 0) {
      replace(body, h('p', { class: 'muted', 'data-testid': 'no-schedules' }, 'No schedule is defined on the queues this deployment serves.'));
      return;
    }
    replace(body, h('table', { class: 'jobs', 'data-testid': 'schedules-table' },
      h('thead', {}, h('tr', {}, ['Schedule', 'Queue', 'When', 'Zone', 'Next firing', 'Last firing', 'Last job', 'Fired', 'Skipped',
        'State', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, schedules.map((s) => h('tr', { 'data-testid': 'schedule-row', 'data-name': s.name, 'data-queue': s.queue },
        h('td', {}, h('a', { href: scheduleHref(s), class: 'mono', 'data-testid': 'schedule-link' }, s.name)),
        h('td', {}, h('a', { href: `#/queues/${enc(s.queue)}`, class: 'mono' }, s.queue)),
        h('td', { class: ['mono', 'nowrap'], 'data-testid': 'schedule-when' }, when(s)),
        h('td', { class: 'mono' }, s.zone ?? '—'),
        h('td', { 'data-testid': 'schedule-next' }, s.paused ? h('span', { class: 'muted' }, 'paused') : timeEl(s.nextSlot)),
        h('td', {}, timeEl(s.lastSlot)),
        h('td', {}, jobLink(s.queue, s.lastJob)),
        h('td', { 'data-testid': 'schedule-fired' }, number(s.fired)),
        h('td', {}, number(s.skipped)),
        h('td', {}, stateBadge(s)),
        h('td', {}, pauseToggle(s, () => load(true).then(() => focusToggle(body, s)))))))));
  }).catch((e) => {
    if (!stopped) replace(body, h('p', { class: 'error' }, describeError(e)));
  });
  load();
  const timer = setInterval(() => load(), 5000);
  return () => { stopped = true; clearInterval(timer); };
}

function fact(label, value, testid) {
  return h('div', {}, h('dt', {}, label), h('dd', testid ? { 'data-testid': testid } : {}, value));
}

function misfireWords(s) {
  if (s.misfire === 'skip') return `skip missed slots (a slot over ${duration(s.misfireGraceMs)} late is missed)`;
  if (s.misfire === 'run-once') return `run the latest missed slot once (a slot over ${duration(s.misfireGraceMs)} late is missed)`;
  return `run each missed slot, the latest ${s.misfireLimit} at most (a slot over ${duration(s.misfireGraceMs)} late is missed)`;
}

export function schedulePage(view, queue, name) {
  let stopped = false;
  const head = h('div', { class: 'page-tools' });
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading the schedule…'));
  replace(view,
    h('p', { class: 'crumbs' }, h('a', { href: '#/schedules' }, 'Schedules'), ' / ', h('span', { class: 'mono' }, queue), ' / '),
    h('div', { class: 'page-head' }, h('h1', {}, 'Schedule ', h('span', { class: 'mono' }, name)), head),
    body);

  const render = (s) => {
    replace(head, stateBadge(s), pauseToggle(s, (now) => { render(now); focusToggle(head, now); }));
    const payloadText = JSON.stringify(s.payload, null, 2);
    const history = [...(s.history || [])].reverse();
    replace(body,
      h('dl', { class: 'facts facts-wide' },
        fact('Queue', h('a', { href: `#/queues/${enc(s.queue)}`, class: 'mono' }, s.queue)),
        fact('When', h('span', { class: 'mono' }, when(s)), 'schedule-when'),
        s.kind === 'cron' ? fact('Zone', h('span', { class: 'mono' }, s.zone)) : null,
        fact('Next firing', s.paused ? h('span', { class: 'muted' }, 'paused') : timeEl(s.nextSlot), 'schedule-next'),
        fact('Last firing', s.lastSlot ? [timeEl(s.lastSlot), h('span', { class: 'muted small' }, ' (fired at ', timeEl(s.lastFiredAt), ')')] : timeEl(null)),
        fact('Last job', s.lastJob ? [jobLink(s.queue, s.lastJob), s.lastJobState ? ` ${s.lastJobState}` : ' (deleted)'] : jobLink(s.queue, null)),
        fact('Fired / skipped', `${number(s.fired)} / ${number(s.skipped)}`),
        fact('Lane', h('span', { class: 'mono' }, s.lane)),
        fact('Attempts per job', String(s.maxAttempts)),
        fact('Missed slots', misfireWords(s)),
        fact('Defined', [timeEl(s.definedAt), ` by ${s.source === 'config' ? 'configuration' : 'the API'} (version ${s.version})`]),
        s.resumedAt ? fact('Last resumed', timeEl(s.resumedAt)) : null),
      h('h2', { class: 'section-title' }, 'Payload of each job'),
      h('pre', { class: 'payload', 'data-testid': 'schedule-payload', tabindex: '0' }, payloadText),
      h('h2', { class: 'section-title' }, 'Recent firings'),
      history.length === 0 ? h('p', { class: 'muted', 'data-testid': 'no-firings' }, 'Nothing fired or skipped yet.')
        : h('table', { class: 'jobs', 'data-testid': 'firings-table' },
          h('caption', { class: 'visually-hidden' }, `recent firings of schedule ${s.name}, newest first`),
          h('thead', {}, h('tr', {}, ['At (server clock)', 'What', 'Slot', 'Job'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, history.map((e) => h('tr', { 'data-testid': 'firing-row', 'data-event': e.event },
            h('td', {}, timeEl(e.at)),
            h('td', {}, e.event === 'skipped' ? `skipped ${number(e.count)} slot(s), the latest` : (EVENT_WORDS[e.event] || e.event)),
            h('td', {}, timeEl(e.slot)),
            h('td', {}, jobLink(s.queue, e.jobId)))))));
  };

  const load = () => get(`/schedules/${enc(queue)}/${enc(name)}`).then((s) => {
    if (stopped) return;
    // Do not rebuild the page under a keyboard user's focus; the next refresh catches up.
    if (view.contains(document.activeElement)) return;
    render(s);
  }).catch((e) => {
    if (!stopped) replace(body, h('p', { class: 'error', 'data-testid': 'schedule-error' }, describeError(e)));
  });
  load();
  const timer = setInterval(load, 5000);
  return () => { stopped = true; clearInterval(timer); };
}
