// Workers: which worker holds which job's lease, until when (server clock).
import { get, enc } from '../api.js';
import { h, replace, timeEl, duration, describeError, time } from '../dom.js';

export function workersPage(view) {
  let stopped = false;
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading leases…'));
  const updated = h('span', { class: 'muted small', 'data-testid': 'workers-updated' });
  replace(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Workers'), h('div', { class: 'page-tools' }, updated)),
    h('p', { class: 'muted' }, 'Leases held right now. A lease past its deadline is taken back by the reaper and the job is handed out again with the next token.'),
    body);

  const load = () => get('/workers').then((leases) => {
    if (stopped) return;
    // Do not rebuild the table under a keyboard user's focus; the next refresh catches up.
    if (body.contains(document.activeElement) && document.activeElement !== body) return;
    updated.textContent = `updated ${time(new Date().toISOString())}`;
    if (!Array.isArray(leases) || leases.length === 0) {
      replace(body, h('p', { class: 'muted', 'data-testid': 'no-leases' }, 'No worker holds a lease right now.'));
      return;
    }
    const now = Date.now();
    const sorted = [...leases].sort((a, b) => (a.worker || '').localeCompare(b.worker || '') || String(a.leaseUntil).localeCompare(String(b.leaseUntil)));
    replace(body, h('table', { class: 'jobs', 'data-testid': 'workers-table' },
      h('thead', {}, h('tr', {}, ['Worker', 'Queue', 'Job', 'Attempt (token)', 'Claimed at', 'Lease until', 'Left (approx.)']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, sorted.map((l) => {
        const left = new Date(l.leaseUntil).getTime() - now;
        return h('tr', { 'data-testid': 'lease-row' },
          h('td', { class: 'mono' }, l.worker ?? '—'),
          h('td', { class: 'mono' }, l.queue),
          h('td', {}, h('a', { href: `#/jobs/${enc(l.queue)}/${enc(l.jobId)}`, class: 'mono' }, `#${l.jobId}`)),
          h('td', {}, String(l.attempt)),
          h('td', {}, timeEl(l.claimedAt)),
          h('td', {}, timeEl(l.leaseUntil)),
          h('td', { class: left < 0 ? 'error-text' : '' }, left < 0 ? `expired ${duration(-left)} ago` : duration(left)));
      }))));
  }).catch((e) => {
    if (!stopped) replace(body, h('p', { class: 'error' }, describeError(e)));
  });
  load();
  const timer = setInterval(load, 2000);
  return () => { stopped = true; clearInterval(timer); };
}
