// The console shell: session, navigation, and a hash router (#/, #/queues/q, #/jobs/q/id, #/workers, #/schedules,
// #/schedules/q/name, #/lab).
import { currentSession, isAdmin, signOut } from './api.js';
import { h, replace, describeError } from './dom.js';
import { overviewPage } from './pages/overview.js';
import { queuePage } from './pages/queue.js';
import { jobPage } from './pages/job.js';
import { workersPage } from './pages/workers.js';
import { schedulesPage, schedulePage } from './pages/schedules.js';
import { labPage } from './pages/lab.js';

const main = document.getElementById('main');
let cleanup = null;

const routes = [
  [/^\/?$/, 'overview', () => overviewPage],
  [/^\/queues\/([^/]+)(?:\/([a-z]+))?$/, 'overview', (m) => (view) => queuePage(view, decodeURIComponent(m[1]), m[2] || 'pending')],
  [/^\/jobs\/([^/]+)\/([^/]+)$/, 'overview', (m) => (view) => jobPage(view, decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/workers$/, 'workers', () => workersPage],
  [/^\/schedules$/, 'schedules', () => schedulesPage],
  [/^\/schedules\/([^/]+)\/([^/]+)$/, 'schedules', (m) => (view) => schedulePage(view, decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/lab$/, 'lab', () => labPage],
];

function notFound(view) {
  replace(view, h('h1', {}, 'Nothing here'), h('p', {}, 'This address names no page. ', h('a', { href: '#/' }, 'Go to the overview')));
}

function route() {
  if (cleanup) {
    try { cleanup(); } catch (ignored) { /* a page's teardown must not stop navigation */ }
    cleanup = null;
  }
  // Confirmations of a finished action belong to the page they were made on.
  for (const note of document.querySelectorAll('#notices .notice-ok')) {
    if (note.dataset.page !== (location.hash || '#/')) note.remove();
  }
  const path = (location.hash || '#/').slice(1);
  let page = notFound;
  let section = '';
  for (const [pattern, nav, make] of routes) {
    const m = path.match(pattern);
    if (m) { page = make(m); section = nav; break; }
  }
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const view = h('div', { class: 'page' });
  replace(main, view);
  const result = page(view);
  if (typeof result === 'function') cleanup = result;
  if (document.activeElement && document.activeElement !== document.body && !main.contains(document.activeElement)
      && !document.activeElement.closest('nav')) {
    main.focus({ preventScroll: true });
  }
}

async function showSession() {
  const box = document.getElementById('session');
  try {
    const s = await currentSession();
    const roles = Array.isArray(s.roles) ? s.roles.join(', ') : '';
    const out = h('button', { type: 'button', class: ['button', 'sign-out'], 'data-testid': 'sign-out' }, 'Sign out');
    out.addEventListener('click', () => signOut().catch((e) => {
      document.getElementById('notices').append(h('div', { class: ['notice', 'notice-error'] }, describeError(e)));
    }));
    replace(box, h('span', { class: 'user', 'data-testid': 'session-user' }, s.user || '?'),
      h('span', { class: 'muted' }, roles ? ` (${roles})` : ''), out);
    if (!isAdmin()) {
      document.getElementById('notices').append(h('div', { class: ['notice', 'notice-info'] },
        'You are signed in without the admin role: you can look, but pausing, retrying, cancelling and deleting are refused.'));
    }
  } catch (e) {
    if (e.status === 401) return; // the session ended: api.js has sent the browser to sign in again
    replace(box, h('span', { class: 'muted' }, 'session unknown'));
  }
}

window.addEventListener('hashchange', route);
showSession().finally(route);
