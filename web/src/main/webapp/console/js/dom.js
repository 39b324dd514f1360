// DOM helpers. Every piece of data reaches the page as a text node: no HTML is ever parsed from data.

const SVG_NS = 'http://www.w3.org/2000/svg';

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'class') {
      node.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (key === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (key === 'checked' || key === 'disabled' || key === 'value' || key === 'indeterminate') {
      node[key] = value;
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  return node;
}

/** h('a', {href: '#/x', class: 'y'}, 'text', child…) builds an element; strings become text nodes. */
export function h(tag, attrs, ...children) {
  return append(setAttrs(document.createElement(tag), attrs), children);
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  return append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function replace(node, ...children) {
  return append(clear(node), children);
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** An instant as "2026-12-02 15:24:07.123" (UTC); a dash for none. */
export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `
    + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** Just the clock part, "15:24:07.123". */
export function clock(iso) {
  const full = time(iso);
  return full.length > 11 && full.includes(' ') ? full.split(' ')[1] : full;
}

/** A <time> element showing the instant, with the exact ISO value machine-readable. */
export function timeEl(iso, short = false) {
  return iso ? h('time', { datetime: iso, title: iso }, short ? clock(iso) : time(iso)) : h('span', { class: 'muted' }, '—');
}

export function duration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  const sign = ms < 0 ? '-' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60000) return `${sign}${(a / 1000).toFixed(1)} s`;
  if (a < 3600000) return `${sign}${Math.floor(a / 60000)} min ${Math.round((a % 60000) / 1000)} s`;
  return `${sign}${Math.floor(a / 3600000)} h ${Math.round((a % 3600000) / 60000)} min`;
}

export function number(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : String(n ?? '—');
}

// ---- confirmation -------------------------------------------------------------------------

/** Asks before a destructive action, in the page's <dialog>; resolves true only on "Confirm". */
export function confirmAction(message, confirmLabel = 'Confirm') {
  const dialog = document.getElementById('confirm-dialog');
  if (!dialog || typeof dialog.showModal !== 'function') {
    return Promise.resolve(window.confirm(message));
  }
  document.getElementById('confirm-message').textContent = message;
  document.getElementById('confirm-ok').textContent = confirmLabel;
  dialog.returnValue = 'cancel';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

// ---- notices ------------------------------------------------------------------------------

/** A short message at the top of the page: kind is "ok", "error" or "info". */
export function notify(message, kind = 'info') {
  const area = document.getElementById('notices');
  const close = h('button', { type: 'button', class: 'notice-close', 'aria-label': 'Dismiss' }, '×');
  const note = h('div', { class: ['notice', `notice-${kind}`], 'data-testid': `notice-${kind}`, 'data-page': location.hash || '#/' },
    h('span', {}, message), close);
  close.addEventListener('click', () => note.remove());
  area.append(note);
  if (kind !== 'error') setTimeout(() => note.remove(), 6000);
  return note;
}

/** Words for an API failure, for an operator. */
export function describeError(e) {
  if (!e) return 'Unknown error';
  if (e.status === 401) return 'Not signed in (or the credentials were refused). Reload the page to sign in again.';
  if (e.status === 403) return `Not allowed: ${e.message}`;
  if (e.status === 404) return `Not found: ${e.message}`;
  if (e.status === 409) return `Refused: ${e.message}`;
  if (e.status) return `${e.status}: ${e.message}`;
  return `Cannot reach the server: ${e.message}`;
}
