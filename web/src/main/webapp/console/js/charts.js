// Small SVG charts drawn with DOM APIs (no library, nothing inline): lines over the last hour.
import { h, s, clock } from './dom.js';

const W = 640;
const H = 180;
const PAD = { left: 44, right: 12, top: 12, bottom: 26 };

function niceMax(v) {
  if (v <= 4) return 4;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * A line chart of per-minute counts.
 * @param {string} label   accessible name
 * @param {Array<{name:string, cls:string, values:number[]}>} series same length as minutes
 * @param {string[]} minutes ISO instants, oldest first
 */
export function lineChart(label, minutes, series) {
  const n = Math.max(minutes.length, 2);
  const max = niceMax(Math.max(0, ...series.flatMap((x) => x.values)));
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (iw * i) / (n - 1);
  const y = (v) => PAD.top + ih - (ih * v) / max;

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label,
    preserveAspectRatio: 'none' }, s('title', {}, label));
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    svg.append(s('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
    svg.append(s('text', { class: 'axis-label', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(Math.round(v))));
  }
  const ticks = [0, Math.floor((minutes.length - 1) / 2), minutes.length - 1].filter((i, j, a) => i >= 0 && a.indexOf(i) === j);
  for (const i of ticks) {
    const anchor = i === 0 ? 'start' : (i === minutes.length - 1 ? 'end' : 'middle');
    svg.append(s('text', { class: 'axis-label', x: x(i), y: H - 8, 'text-anchor': anchor }, clock(minutes[i]).slice(0, 5)));
  }
  for (const line of series) {
    if (!line.values.length) continue;
    const pts = line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    svg.append(s('polyline', { class: ['series', line.cls], points: pts }));
  }
  const legend = h('ul', { class: 'legend' }, series.map((line) => h('li', {},
    h('span', { class: ['swatch', line.cls], 'aria-hidden': 'true' }),
    `${line.name}: ${line.values.reduce((a, b) => a + b, 0)} in the last hour`)));
  return h('figure', { class: 'chart-figure' }, svg, h('figcaption', {}, legend));
}
