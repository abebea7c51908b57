/**
 * The page's script: reads the embedded data, draws the charts, wires the toggles, the zoom
 * buttons (navigate.js), the decision tooltip and the decision log. Bundled by html.ts with
 * esbuild into one inline script; uPlot is inlined beside it as the global `uPlot`. The chart
 * opens on the busiest day with the first policy and AWS target tracking on (view.ts). After
 * drawing, the page sets <html data-report="ready"> and exposes the decoded data as
 * `window.governorReport` (for a look in the browser's console); on failure it shows the error
 * in the page.
 */
import { mainChart, violationChart } from './charts.js';
import { decisionsIn, fillLog, nearestDecision, paintMarkers, showTooltip } from './decisions.js';
import { readModel } from './model.js';
import { CHART, navigation } from './navigate.js';

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

/** Which series and marks are on: two policies at first (view.ts), demand, forecast, markers. */
function initialState(model) {
  return {
    policies: model.policies.map((p) => p.shownAtStart),
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
    checkbox(policies, p.name, state.policies[i], (on) => apply(() => (state.policies[i] = on)), p.color);
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

/** Refills the decision log for a chart's x range; a no-op when the page has no log. */
function decisionLog(model, shown, goTo, current) {
  const table = $('decision-log-table');
  return (u) => {
    if (table)
      fillLog(
        table,
        $('decision-log-caption'),
        decisionsIn(model, shown, u.scales.x.min, u.scales.x.max),
        goTo,
        current(),
      );
  };
}

function start() {
  const model = readModel(JSON.parse($('report-data').textContent));
  const state = initialState(model);
  const shown = (i) => state.policies[i];
  const marked = (i) => state.markers && state.policies[i];
  const figure = $(CHART);
  const tip = $('tooltip');
  const width = () => Math.max(320, figure.clientWidth);
  const charts = [];
  const nav = navigation(model, () => charts[0], figure, $('view-range'));
  const updateLog = decisionLog(model, shown, nav.goTo, nav.current);
  // Zooming either chart zooms the other; the log and the view line follow the main chart.
  const syncX = (u, key) => {
    if (key !== 'x') return;
    const { min, max } = u.scales.x;
    for (const c of charts)
      if (c !== u && (c.scales.x.min !== min || c.scales.x.max !== max)) c.setScale('x', { min, max });
    if (u === charts[0] && charts.length === 2) {
      updateLog(u);
      nav.describe(u);
    }
  };
  const main = mainChart(model, $('chart-main'), width(), shown, {
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
  nav.addButtons($('zoom-buttons'));
  window.addEventListener('resize', () => {
    for (const c of charts) c.setSize({ width: width(), height: c.height });
  });
  // spread-ok: a [from, to] pair
  nav.zoomTo(...model.busiestDay);
  // A trace of a day or less opens on all of it: no change of scale, so no hook; fill them here.
  updateLog(main.u);
  nav.describe(main.u);
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
