/**
 * Governor's decisions on the chart: a marker at (minute, new capacity) for each one, ▲ for a
 * scale-out, ▼ for a scale-in, ◆ for a hold worth showing (a panic); hovering a marker shows
 * its reason codes and message. Under the chart, the decision log lists the decisions in the
 * zoomed window as text. Every text from the result goes in through textContent, never HTML.
 */
import { formatNumber } from '../format.ts';
import { formatMinute } from '../time.ts';

/* global uPlot */

const HOVER_PX = 8;
// Markers closer than this on average (CSS px) would pile up into a smear: draw ticks instead.
const MIN_SPACING_PX = 9;
const LOG_ROWS = 100;
const ACTION_TEXT = { 'scale-out': 'scale out', 'scale-in': 'scale in', hold: 'hold' };

function marker(ctx, action, x, y, r) {
  ctx.beginPath();
  if (action === 'scale-out') {
    ctx.moveTo(x, y - r);
    ctx.lineTo(x + r, y + r * 0.8);
    ctx.lineTo(x - r, y + r * 0.8);
  } else if (action === 'scale-in') {
    ctx.moveTo(x, y + r);
    ctx.lineTo(x + r, y - r * 0.8);
    ctx.lineTo(x - r, y - r * 0.8);
  } else {
    ctx.moveTo(x, y - r);
    ctx.lineTo(x + r, y);
    ctx.lineTo(x, y + r);
    ctx.lineTo(x - r, y);
  }
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
}

/** Decisions of the shown policies inside the x range, with their policy, in minute order. */
export function decisionsIn(model, shown, min, max) {
  const out = [];
  model.policies.forEach((p, i) => {
    if (!shown(i)) return;
    for (const row of p.decisions) if (row[0] >= min && row[0] <= max) out.push({ policy: p, row });
  });
  return out.sort((a, b) => a.row[0] - b.row[0]);
}

/** Whether the decisions in view are sparse enough to draw (and hover) one by one. */
export function markersFit(u, count) {
  return count * MIN_SPACING_PX <= u.bbox.width / uPlot.pxRatio;
}

/**
 * Draws a marker per decision at its new capacity; when they are too dense to tell apart (a
 * month zoomed out), draws a thin tick per decision along the top edge instead, so where the
 * policy was busy still shows, and zooming in brings the markers back.
 */
export function paintMarkers(u, model, shown) {
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  const px = uPlot.pxRatio;
  const hits = decisionsIn(model, shown, u.scales.x.min, u.scales.x.max);
  const fit = markersFit(u, hits.length);
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  ctx.lineWidth = px;
  ctx.strokeStyle = '#fff';
  for (const { policy, row } of hits) {
    ctx.fillStyle = policy.color;
    const x = u.valToPos(row[0], 'x', true);
    if (fit) marker(ctx, row[1], x, u.valToPos(row[3], 'inst', true), 5 * px);
    else ctx.fillRect(x, top, px, 6 * px);
  }
  ctx.restore();
}

/** The decision nearest the cursor within HOVER_PX, or null. Positions in CSS pixels. */
export function nearestDecision(u, model, shown) {
  const { left, top } = u.cursor;
  if (left == null || left < 0) return null;
  const min = u.posToVal(left - HOVER_PX, 'x');
  const max = u.posToVal(left + HOVER_PX, 'x');
  if (!markersFit(u, decisionsIn(model, shown, u.scales.x.min, u.scales.x.max).length)) return null;
  let best = null;
  let bestDist = HOVER_PX;
  for (const hit of decisionsIn(model, shown, min, max)) {
    const dx = u.valToPos(hit.row[0], 'x') - left;
    const dy = u.valToPos(hit.row[3], 'inst') - top;
    const dist = Math.hypot(dx, dy);
    if (dist <= bestDist) [best, bestDist] = [hit, dist];
  }
  return best;
}

function line(doc, cls, text) {
  const el = doc.createElement('div');
  el.className = cls;
  el.textContent = text;
  return el;
}

export function showTooltip(tip, u, hit) {
  if (!hit) {
    tip.hidden = true;
    return;
  }
  const [minute, action, from, to, reasons, message] = hit.row;
  const doc = tip.ownerDocument;
  tip.replaceChildren(
    line(doc, 'tip-head', `${hit.policy.name} · ${formatMinute(minute)}`),
    line(
      doc,
      'tip-action',
      `${ACTION_TEXT[action] ?? action} ${formatNumber(from)} → ${formatNumber(to)} instances`,
    ),
    line(doc, 'tip-reasons', reasons.join(', ')),
    line(doc, 'tip-message', message),
  );
  tip.hidden = false;
  const x = u.over.offsetLeft + u.valToPos(minute, 'x');
  const y = u.over.offsetTop + u.valToPos(to, 'inst');
  const flip = x > u.over.offsetLeft + u.over.clientWidth * 0.6;
  tip.style.left = `${flip ? x - tip.offsetWidth - 12 : x + 12}px`;
  tip.style.top = `${Math.max(0, y - tip.offsetHeight / 2)}px`;
}

function cell(doc, text, cls) {
  const td = doc.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

/**
 * Fills the decision log's body with the decisions in [min, max]. Each time is a link to the
 * chart (`#chart-wrap`): `goTo(policy, minute)` zooms the chart to the two hours around the
 * decision and brings the chart into view. The row of the decision last gone to (`current`,
 * { policy, minute } or null) is marked, so the reader finds it again on coming back.
 */
export function fillLog(table, caption, hits, goTo, current) {
  const doc = table.ownerDocument;
  const shown = hits.slice(0, LOG_ROWS);
  const rows = shown.map(({ policy, row }) => {
    const [minute, action, from, to, reasons, message] = row;
    const tr = doc.createElement('tr');
    const when = doc.createElement('td');
    const link = doc.createElement('a');
    link.href = '#chart-wrap';
    link.className = 'when';
    link.textContent = formatMinute(minute);
    link.title = 'Zoom the chart to the two hours around this decision and go to it';
    link.addEventListener('click', (event) => {
      event.preventDefault();
      goTo(policy, minute);
    });
    when.append(link);
    if (current && current.policy === policy.name && current.minute === minute) {
      tr.className = 'current';
      tr.setAttribute('aria-current', 'true');
    }
    const name = cell(doc, policy.name);
    const swatch = doc.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = policy.color;
    name.prepend(swatch);
    tr.append(when, name, cell(doc, ACTION_TEXT[action] ?? action), cell(doc, `${from} → ${to}`, 'num'));
    tr.append(cell(doc, reasons.join(', '), 'codes'), cell(doc, message));
    return tr;
  });
  // spread-ok: at most LOG_ROWS (100) rows
  table.tBodies[0].replaceChildren(...rows);
  caption.textContent =
    hits.length > shown.length
      ? `${formatNumber(hits.length)} decisions in the visible window; the first ${LOG_ROWS} are listed. Zoom in to see the others.`
      : `${formatNumber(hits.length)} decisions in the visible window.`;
}
