/**
 * The two uPlot charts: demand and capacity (instances on the left axis, requests per minute on
 * the right, the same scale through mu), and the SLO-violation strip under it, one row per
 * policy. Both share the x axis (minutes since the trace's start), the cursor and the zoom.
 */
import { formatNumber } from '../format.ts';
import { axisLabel, formatMinute, MINUTE_INCREMENTS, scaledTicks } from '../time.ts';

/* global uPlot */

// Axis widths (ticks + label), equal on both charts so their plot areas line up minute for minute.
const LEFT_AXIS = 56;
const RIGHT_AXIS = 72;
const LABEL_SIZE = 24;
const ROW_HEIGHT = 26;
const SYNC_KEY = 'governor-report';

const dash = (v, text) => (v == null ? '–' : text);

/** A forecast value at the cursor; before the first forecast the data holds null, not 0. */
const forecastValue = (mu) => (_u, v, _si, idx) =>
  v == null ? (idx == null ? '–' : 'no forecast yet') : `${formatNumber(v * mu)} req/min`;

function xAxis() {
  return {
    incrs: MINUTE_INCREMENTS,
    space: 70,
    values: (_u, splits, _i, _space, incr) => splits.map((v, i) => axisLabel(v, incr, i === 0)),
  };
}

/** The shared cursor; `yLine` false on the strip, whose rows have no values to read across. */
function cursor(yLine) {
  return {
    y: yLine,
    drag: { x: true, y: false, setScale: true },
    focus: { prox: 12 },
    sync: { key: SYNC_KEY, scales: ['x', null], setSeries: false },
    points: { show: false },
  };
}

/**
 * The main chart's series and data, built together so they cannot drift apart, and where each
 * policy's lines sit among them. Policies are added last to first, so the first (Governor, as
 * the backtest lists it) is drawn on top of the baselines. `shown(i)`: whether policy i's ready
 * line starts on.
 */
function mainSeries(model, shown) {
  const stepped = uPlot.paths.stepped({ align: 1 });
  const inst = (_u, v) => dash(v, `${formatNumber(v)} ${v === 1 ? 'instance' : 'instances'}`);
  const rpm = (_u, v) => dash(v, `${formatNumber(v * model.mu)} req/min`);
  const series = [{ label: 'time', value: (_u, v) => dash(v, formatMinute(v)) }];
  const data = [model.x];
  const index = { bands: [], policies: [] };
  const add = (s, values) => {
    data.push(values);
    return series.push({ scale: 'inst', points: { show: false }, ...s }) - 1;
  };
  const oracle = {
    label: 'oracle (floor)',
    stroke: '#8a8a8a',
    fill: 'rgba(0,0,0,0.07)',
    paths: stepped,
    value: inst,
  };
  index.oracle = add(oracle, model.oracle);
  const f = model.forecast;
  if (f) {
    const band = { stroke: 'rgba(0,114,178,0.35)', width: 1, value: forecastValue(model.mu) };
    const p99 = f.p99 ? add({ ...band, label: 'forecast p99' }, f.p99) : null;
    const p90 = add({ ...band, label: 'forecast p90' }, f.p90);
    const p50 = add({ ...band, label: 'forecast p50', stroke: 'rgba(0,114,178,0.8)', dash: [4, 3] }, f.p50);
    index.forecast = [p99, p90, p50].filter((i) => i !== null);
    index.bands.push({ series: [p90, p50], fill: 'rgba(86,180,233,0.28)' });
    if (p99 !== null) index.bands.push({ series: [p99, p90], fill: 'rgba(86,180,233,0.14)' });
  }
  index.demand = add({ label: 'demand', stroke: 'rgba(0,0,0,0.75)', width: 1, value: rpm }, model.demand);
  for (let i = model.policies.length - 1; i >= 0; i--) {
    const p = model.policies[i];
    const line = { stroke: p.color, paths: stepped, value: inst };
    index.policies[i] = {
      ready: add({ ...line, label: p.name, width: i === 0 ? 2 : 1.5, show: shown(i) }, p.ready),
      provisioned: add(
        { ...line, label: `${p.name} billed`, width: 1, dash: [6, 3], show: false },
        p.provisioned,
      ),
      warmPool: p.warmPool
        ? add({ ...line, label: `${p.name} warm pool`, width: 1.5, dash: [1, 3], show: false }, p.warmPool)
        : null,
    };
  }
  return { series, data, index };
}

/** Lists the legend in reading order (policies first to last), whatever order they are drawn in. */
function orderLegend(u, index) {
  const rows = u.root.querySelectorAll('.u-legend .u-series');
  const order = [0, index.oracle, ...(index.forecast ?? []), index.demand];
  for (const p of index.policies) {
    order.push(p.ready, p.provisioned);
    if (p.warmPool !== null) order.push(p.warmPool);
  }
  const body = rows[0]?.parentNode;
  for (const i of order) if (rows[i] && body) body.append(rows[i]);
}

export function mainChart(model, el, width, shown, hooks) {
  const { series, data, index } = mainSeries(model, shown);
  const opts = {
    width,
    height: 380,
    series,
    bands: index.bands,
    focus: { alpha: 0.35 },
    cursor: cursor(true),
    legend: { live: true },
    scales: { x: { time: false }, inst: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.08] } },
    axes: [
      xAxis(),
      {
        scale: 'inst',
        label: 'instances',
        labelSize: LABEL_SIZE,
        size: LEFT_AXIS,
        values: (_u, s) => s.map((v) => formatNumber(v)),
      },
      {
        scale: 'inst',
        side: 1,
        label: 'requests per minute',
        labelSize: LABEL_SIZE,
        size: RIGHT_AXIS,
        grid: { show: false },
        splits: (_u, _i, min, max) => scaledTicks(min, max, model.mu, 5),
        values: (_u, s) => s.map((v) => formatNumber(v * model.mu)),
      },
    ],
    hooks,
  };
  const u = new uPlot(opts, data, el);
  orderLegend(u, index);
  return { u, index };
}

/** One row per policy: its name and violation count above, a bar per run of violating minutes. */
function paintViolations(u, model, visible) {
  if (model.policies.length === 0) return;
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  const px = uPlot.pxRatio;
  const rowH = height / model.policies.length;
  const [xmin, xmax] = [u.scales.x.min, u.scales.x.max];
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  ctx.font = `${11 * px}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  model.policies.forEach((p, r) => {
    const y = top + r * rowH;
    ctx.globalAlpha = visible(r) ? 1 : 0.3;
    ctx.fillStyle = '#333';
    ctx.fillText(`${p.name}: ${formatNumber(p.violationMinutes)} violation min`, left + 4 * px, y + 2 * px);
    ctx.fillStyle = p.color;
    for (const [a, b] of p.runs) {
      if (b + 1 < xmin || a > xmax) continue;
      const x0 = u.valToPos(a, 'x', true);
      const x1 = u.valToPos(b + 1, 'x', true);
      ctx.fillRect(x0, y + 15 * px, Math.max(x1 - x0, px), rowH - 18 * px);
    }
    ctx.fillStyle = '#e3e3e3';
    ctx.fillRect(left, y + rowH - px, width, px);
  });
  ctx.restore();
}

// The strip's y axes draw nothing; they only take the main chart's axis widths (label included).
const blankAxis = {
  scale: 'row',
  label: '',
  labelSize: LABEL_SIZE,
  grid: { show: false },
  ticks: { show: false },
  values: (_u, s) => s.map(() => ''),
};

export function violationChart(model, el, width, visible, hooks) {
  const n = Math.max(1, model.policies.length);
  const opts = {
    width,
    height: ROW_HEIGHT * n + 48,
    legend: { show: false },
    cursor: cursor(false),
    series: [{}, { scale: 'row', label: 'violations', points: { show: false } }],
    scales: { x: { time: false }, row: { auto: false, range: [0, n] } },
    axes: [xAxis(), { ...blankAxis, size: LEFT_AXIS }, { ...blankAxis, side: 1, size: RIGHT_AXIS }],
    hooks: { ...hooks, draw: [(u) => paintViolations(u, model, visible)] },
  };
  return new uPlot(opts, [model.x, new Array(model.minutes).fill(null)], el);
}
