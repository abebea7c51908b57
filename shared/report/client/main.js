/**
 * The report page's script: reads the embedded data, draws the charts, wires the toggles, the
 * zoom buttons, the decision tooltip and the decision log. Bundled by html.ts with esbuild into
 * one inline script; uPlot is inlined beside it as the global `uPlot`. After drawing, the page
 * sets <html data-report="ready"> and exposes the decoded data as `window.governorReport` (for
 * a look in the browser's console); on failure it shows the error in the page.
 */
import { mainChart, violationChart } from './charts.js';
import { decisionsIn, fillLog, nearestDecision, paintMarkers, showTooltip } from './decisions.js';
import { readModel } from './model.js';

const $ = (id) => document.getElementById(id);

function checkbox(container, text, checked, onChange, color) {
  const label = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.checked = checked;
  input.addEventListener('change', () => onChange(input.checked));
  label.append(input);
  if (color) {
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = color;
    label.append(swatch);
  }
  label.append(document.createTextNode(text));
  container.append(label);
}

function button(container, text, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  container.append(b);
}

/** Which series and marks are on: every policy, the oracle, demand, forecast and markers. */
function initialState(model) {
  return {
    policies: model.policies.map(() => true),
    billed: false,
    warm: false,
    forecast: true,
    markers: true,
  };
}

function applyState(main, strip, state) {
  const { u, index } = main;
  u.batch(() => {
    for (const i of index.forecast ?? []) u.setSeries(i, { show: state.forecast });
    index.policies.forEach((p, i) => {
      const on = state.policies[i];
      u.setSeries(p.ready, { show: on });
      u.setSeries(p.provisioned, { show: on && state.billed });
      if (p.warmPool !== null) u.setSeries(p.warmPool, { show: on && state.warm });
    });
  });
  u.redraw(false);
  strip.redraw(false);
}

function buildControls(model, state, apply) {
  const policies = $('policy-toggles');
  model.policies.forEach((p, i) => {
    checkbox(policies, p.name, true, (on) => apply(() => (state.policies[i] = on)), p.color);
  });
  const layers = $('layer-toggles');
  checkbox(layers, 'billed capacity (ready + starting)', state.billed, (on) =>
    apply(() => (state.billed = on)),
  );
  if (model.policies.some((p) => p.warmPool))
    checkbox(layers, 'warm pool', state.warm, (on) => apply(() => (state.warm = on)));
  if (model.forecast)
    checkbox(layers, 'forecast band', state.forecast, (on) => apply(() => (state.forecast = on)));
  if (model.policies.some((p) => p.decisions.length > 0)) {
    checkbox(layers, 'decision markers', state.markers, (on) => apply(() => (state.markers = on)));
  }
}

function zoomButtons(model, zoomTo) {
  const zoom = $('zoom-buttons');
  button(zoom, 'Whole trace', () => zoomTo(0, model.minutes - 1));
  button(zoom, 'Busiest day', () => zoomTo(...model.busiestDay));
  const first = model.policies[0];
  if (first?.worstDay) button(zoom, `${first.name}: most violations`, () => zoomTo(...first.worstDay));
}

/** Refills the decision log for a chart's x range; a no-op when the page has no log. */
function decisionLog(model, shown, zoomTo) {
  const table = $('decision-log-table');
  return (u) => {
    if (table)
      fillLog(
        table,
        $('decision-log-caption'),
        decisionsIn(model, shown, u.scales.x.min, u.scales.x.max),
        zoomTo,
      );
  };
}

function start() {
  const model = readModel(JSON.parse($('report-data').textContent));
  const state = initialState(model);
  const shown = (i) => state.policies[i];
  const marked = (i) => state.markers && state.policies[i];
  const wrap = $('chart-wrap');
  const tip = $('tooltip');
  const width = () => Math.max(320, wrap.clientWidth);
  const charts = [];
  const zoomTo = (min, max) =>
    charts[0].setScale('x', { min: Math.max(0, min), max: Math.min(model.minutes - 1, max) });
  const updateLog = decisionLog(model, shown, zoomTo);
  // Zooming either chart zooms the other; the log follows the main chart.
  const syncX = (u, key) => {
    if (key !== 'x') return;
    const { min, max } = u.scales.x;
    for (const c of charts)
      if (c !== u && (c.scales.x.min !== min || c.scales.x.max !== max)) c.setScale('x', { min, max });
    if (u === charts[0]) updateLog(u);
  };
  const main = mainChart(model, $('chart-main'), width(), {
    draw: [(u) => paintMarkers(u, model, marked)],
    setCursor: [(u) => showTooltip(tip, u, state.markers ? nearestDecision(u, model, shown) : null)],
    setScale: [syncX],
  });
  const strip = violationChart(model, $('chart-violations'), width(), shown, { setScale: [syncX] });
  charts.push(main.u, strip);
  buildControls(model, state, (change) => {
    change();
    applyState(main, strip, state);
    updateLog(main.u);
  });
  zoomButtons(model, zoomTo);
  window.addEventListener('resize', () => {
    for (const c of charts) c.setSize({ width: width(), height: c.height });
  });
  updateLog(main.u);
  window.governorReport = { model, charts };
  document.documentElement.dataset.report = 'ready';
}

try {
  start();
} catch (error) {
  const box = $('report-error');
  box.hidden = false;
  box.textContent = `The charts could not be drawn: ${error.message}`;
  throw error;
}
