// Guarantees lab: one demo job through the real engine with a crash injected; what happened, in numbers and words.
import { post } from '../api.js';
import { h, replace, describeError } from '../dom.js';

const MODES = [
  ['at-most-once', 'At-most-once', 'acknowledge first, then do the work'],
  ['at-least-once', 'At-least-once', 'do the work, then acknowledge; redeliver on a crash'],
  ['effect-store', 'Effect store (EchoMQ)', 'at-least-once delivery; the effect commits once, keyed by the job'],
];
const CRASHES = [
  ['lease', 'At the lease', 'right after the claim, before any work'],
  ['effect', 'At the effect', 'during or right after the work, before the acknowledgement'],
  ['ack', 'At the acknowledgement', 'the work is done; the ack never reaches the queue'],
  ['done', 'When done', 'after the acknowledgement: a clean run'],
];

function radios(name, legend, options, checked) {
  return h('fieldset', { class: 'choice' }, h('legend', {}, legend),
    options.map(([value, label, hint]) => {
      const id = `lab-${name}-${value}`;
      return h('div', { class: 'choice-option' },
        h('input', { type: 'radio', name, id, value, checked: value === checked, 'data-testid': id }),
        h('label', { for: id }, h('strong', {}, label), h('span', { class: 'muted small' }, ` ${hint}`)));
    }));
}

function stat(label, value, testid, good) {
  return h('div', { class: ['stat', good === undefined ? '' : (good ? 'stat-good' : 'stat-bad')] },
    h('dt', {}, label), h('dd', { 'data-testid': testid }, String(value)));
}

export function labPage(view) {
  let stopped = false;
  const form = h('form', { class: 'card lab-form', 'data-testid': 'lab-form' },
    radios('mode', 'Delivery mode', MODES, 'effect-store'),
    radios('crashPoint', 'Crash the worker', CRASHES, 'effect'),
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit', class: ['button', 'primary'], 'data-testid': 'lab-run' }, 'Run one job')));
  const result = h('section', { class: 'lab-result', 'aria-live': 'polite', 'data-testid': 'lab-result' },
    h('p', { class: 'muted' }, 'Pick a mode and a crash point, then run. One demo job goes through the real engine on a throwaway queue.'));
  replace(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Guarantees lab')),
    h('p', {}, 'What does a worker crash cost you? Lost jobs, or effects applied twice, depending on when the worker dies and how delivery is designed.'),
    form, result);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const mode = form.elements.mode.value;
    const crashPoint = form.elements.crashPoint.value;
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    button.textContent = 'Running…';
    replace(result, h('p', { class: 'muted', 'data-testid': 'lab-running' }, `Running ${mode} with a crash at ${crashPoint}… this takes a few seconds.`));
    try {
      const run = await post('/lab/runs', { mode, crashPoint });
      if (stopped) return;
      const fine = run.lost === 0 && run.effectsApplied === 1;
      replace(result,
        h('h2', { class: 'section-title' }, `${run.mode}, crash at ${run.crashPoint}`),
        h('p', { class: ['verdict', fine ? 'verdict-good' : 'verdict-bad'], 'data-testid': 'lab-verdict' }, run.verdict),
        h('dl', { class: 'stats' },
          stat('Jobs lost', run.lost, 'lab-lost', run.lost === 0),
          stat('Deliveries', run.deliveries, 'lab-deliveries'),
          stat('Effects applied', run.effectsApplied, 'lab-effects', run.effectsApplied === 1),
          stat('Completed in the queue', typeof run.completed === 'boolean' ? (run.completed ? 'yes' : 'no') : run.completed, 'lab-completed')),
        run.lost > 0 && (run.completed === true || run.completed > 0)
          ? h('p', { class: 'muted', 'data-testid': 'lab-note' }, 'The queue recorded the job as completed, yet its effect never happened: the acknowledgement came before the work.')
          : null,
        h('h3', {}, 'What happened'),
        h('ol', { class: 'lab-timeline', 'data-testid': 'lab-timeline' }, (run.timeline || []).map((step) =>
          h('li', {}, h('strong', {}, step.step), step.detail ? h('span', {}, ` — ${step.detail}`) : null))));
    } catch (err) {
      if (!stopped) replace(result, h('p', { class: 'error', 'data-testid': 'lab-error' }, describeError(err)));
    } finally {
      button.disabled = false;
      button.textContent = 'Run one job';
    }
  });
  return () => { stopped = true; };
}
