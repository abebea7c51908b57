/**
 * The suite's HTML report: one self-contained page, no script at all (a Content-Security-Policy
 * of `default-src 'none'` with inline styles only). A grid of traces x variants, each cell
 * coloured by its verdict (the objective met, at no more than target tracking's best target); a
 * chart of every cell's cost against target tracking's at its best target and of its attainment
 * against the objective, where the upper-left quadrant wins; the full table.
 */

import { objectiveText } from '../backtest/attainment.ts';
import { escapeHtml, formatNumber, formatRatio, formatShare } from '../report/format.ts';
import type { CellResult } from './cell.ts';
import { savingText } from './format.ts';
import type { SuiteReport } from './report.ts';

const COLOURS = ['#1b6ca8', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0f766e', '#a16207', '#be185d'];

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#1f2328;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}p.how{color:#57606a;margin:4px 0 10px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:4px 8px;border:1px solid #d0d7de;text-align:right}
th{background:#f6f8fa}td.l,th.l{text-align:left}
.grid td{text-align:center;min-width:60px;font-size:12px;white-space:nowrap}.scroll{overflow-x:auto;max-width:100%}.win{background:#dafbe1}.tie{background:#eaeef2}.loss{background:#ffebe9;font-weight:600}
.summary{font-size:16px;margin:10px 0}.summary b.loss{color:#cf222e;background:none}
svg text{font:11px system-ui,sans-serif;fill:#57606a}.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px}`;

const short = (trace: string) => trace.replace(/\.csv$/, '');
/** Against the best target; where none meets the objective, against AWS's recommended one. */
const costRatio = (c: CellResult) => c.governor.instanceMinutes / (c.best ?? c.baseline).instanceMinutes;
const attainmentMargin = (c: CellResult) => c.governor.attainment - c.objective.minutes;

function cellTitle(c: CellResult): string {
  return `${short(c.trace)}, ${c.variant}: ${c.sentence}`;
}

function grid(report: SuiteReport): string {
  const traces = [...new Set(report.cells.map((c) => c.trace))];
  const head = report.variants
    .map((v) => `<th title="${escapeHtml(v.label)}">${escapeHtml(v.id)}</th>`)
    .join('');
  const rows = traces.map((trace) => {
    const tds = report.variants.map((v) => {
      const c = report.cells.find((x) => x.trace === trace && x.variant === v.id);
      if (!c) return '<td>-</td>';
      const text = `${formatShare(c.governor.attainment)}<br>${savingText(c.savingAtEqualSlo)}`;
      return `<td class="${c.outcome}" data-cell="${escapeHtml(`${trace}|${v.id}`)}" title="${escapeHtml(cellTitle(c))}">${text}</td>`;
    });
    return `<tr><th class="l">${escapeHtml(short(trace))}</th>${tds.join('')}</tr>`;
  });
  return `<div class="scroll"><table class="grid"><thead><tr><th class="l">trace</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** x: governor's cost over target tracking's at its best target; y: governor's attainment less the objective. */
function chart(report: SuiteReport): string {
  const W = 720;
  const H = 360;
  // Room on the left for the y labels ("+1.25 %" is about 52 px at 12 px).
  const pad = 64;
  const xs = report.cells.map(costRatio);
  const ys = report.cells.map(attainmentMargin);
  const xMin = Math.min(0.5, ...xs);
  const xMax = Math.max(1.5, ...xs);
  const yAbs = Math.max(0.01, ...ys.map(Math.abs));
  const px = (x: number) => pad + ((x - xMin) / (xMax - xMin)) * (W - 2 * pad);
  const py = (y: number) => H / 2 - (y / yAbs) * (H / 2 - pad);
  // Wins sit upper left: at or above the objective, at or below the best target's cost.
  const traces = [...new Set(report.cells.map((c) => c.trace))];
  const colour = (t: string) => COLOURS[traces.indexOf(t) % COLOURS.length]!;
  const dots = report.cells.map(
    (c, i) =>
      `<circle cx="${px(xs[i]!).toFixed(1)}" cy="${py(ys[i]!).toFixed(1)}" r="5" fill="${colour(c.trace)}" fill-opacity="0.75" stroke="${c.outcome === 'loss' ? '#cf222e' : '#fff'}" stroke-width="${c.outcome === 'loss' ? 2 : 1}"><title>${escapeHtml(cellTitle(c))}</title></circle>`,
  );
  const quadrant = `<rect x="${pad}" y="${pad}" width="${px(1) - pad}" height="${H / 2 - pad}" fill="#dafbe1"/>`;
  const axes = [
    `<line x1="${pad}" y1="${H / 2}" x2="${W - pad}" y2="${H / 2}" stroke="#8c959f"/>`,
    `<line x1="${px(1)}" y1="${pad}" x2="${px(1)}" y2="${H - pad}" stroke="#8c959f"/>`,
    `<text x="${W - pad}" y="${H / 2 - 6}" text-anchor="end">governor cost / target tracking at its best target</text>`,
    `<text x="${px(1) + 6}" y="${pad - 8}">attainment above the objective (share of minutes)</text>`,
    `<text x="${px(1) + 6}" y="${H - pad + 16}">below: misses it</text>`,
    `<text x="${pad + 4}" y="${pad + 14}">wins: meets the objective, no dearer</text>`,
    `<text x="${px(xMin)}" y="${H / 2 + 14}">${xMin.toFixed(2)}</text>`,
    `<text x="${px(1) - 4}" y="${H / 2 + 14}" text-anchor="end">1.00</text>`,
    `<text x="${px(xMax)}" y="${H / 2 + 14}" text-anchor="end">${xMax.toFixed(2)}</text>`,
    `<text x="${pad - 4}" y="${pad + 4}" text-anchor="end">+${formatShare(yAbs)}</text>`,
    `<text x="${pad - 4}" y="${H - pad}" text-anchor="end">-${formatShare(yAbs)}</text>`,
  ];
  const legend = traces
    .map((t) => `<span><i style="background:${colour(t)}"></i>${escapeHtml(short(t))}</span>`)
    .join('');
  return `<svg id="dominance" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Each cell's cost against target tracking at its best target, and its attainment against the objective">${quadrant}${axes.join('')}${dots.join('')}</svg><p class="legend">${legend}</p>`;
}

function table(report: SuiteReport): string {
  const rows = report.cells.map(
    (c) =>
      `<tr class="${c.outcome}"><td class="l">${escapeHtml(short(c.trace))}</td><td class="l">${escapeHtml(c.variant)}</td><td>${formatRatio(c.governor.costVsOracle)}</td><td>${formatNumber(c.governor.violationMinutes)}</td><td>${formatShare(c.governor.attainment)}</td><td>${c.best ? `${c.best.fraction} x` : 'none meets'}</td><td>${c.best ? formatRatio(c.best.costVsOracle) : '-'}</td><td>${c.best ? formatShare(c.best.attainment) : '-'}</td><td>${formatRatio(c.baseline.costVsOracle)}</td><td>${formatShare(c.baseline.attainment)}</td><td>${savingText(c.savingAtEqualSlo)}</td><td class="l">${escapeHtml(c.outcome === 'loss' ? `loss: ${c.reason}` : c.outcome)}</td></tr>`,
  );
  return `<div class="scroll"><table id="cells"><thead><tr><th class="l" rowspan="2">trace</th><th class="l" rowspan="2">variant</th><th colspan="3">governor</th><th colspan="3">target tracking at its best target</th><th colspan="2">at 0.5 x (AWS)</th><th rowspan="2">saving at equal SLO</th><th class="l" rowspan="2">verdict</th></tr><tr><th>x oracle</th><th>viol. min</th><th>attained</th><th>target</th><th>x oracle</th><th>attained</th><th>x oracle</th><th>attained</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

export function renderSuiteHtml(report: SuiteReport): string {
  const s = report.summary;
  const notes = [
    ...new Set(report.cells.flatMap((c) => c.notes.map((n) => `${short(c.trace)} ${c.variant}: ${n}`))),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Governor policy suite: ${s.wins} wins, ${s.losses} losses</title>
<style>${CSS}</style></head><body>
<h1>Governor policy suite</h1>
<p class="how">Policy <code>${escapeHtml(report.policy)}</code>${report.targetId ? `, target <code>${escapeHtml(report.targetId)}</code>` : ''}, judged against the objective (${escapeHtml(report.cells[0] ? objectiveText(report.cells[0].objective) : 'none')} within the SLO) and AWS target tracking at its best target (the cheapest of 0.1 to 1.0 x saturation that meets it, chosen after the fact). Every bundled trace under the reference scenario and under variants that move one knob each (docs/backtest.md).</p>
<p class="summary" id="summary">${s.cells} cells: <b>${s.wins}</b> wins, <b class="${s.losses > 0 ? 'loss' : ''}">${s.losses} losses</b>; median saving at equal SLO <b>${savingText(s.medianSaving)}</b>${s.unreachable > 0 ? ` (in ${s.unreachable} no target tracking target reaches governor's attainment)` : ''}.</p>
<h2>Verdicts</h2>
<p class="how">Each cell: governor's share of minutes within the SLO, then its saving at equal SLO (target tracking's cost at governor's attainment, less governor's, over target tracking's; n/a: no target reaches it). Green: governor meets the objective at no more than target tracking's best target. Red: a loss. Hover for the verdict.</p>
${grid(report)}
<h2>Cost against violations</h2>
<p class="how">One dot per cell. Left of the vertical line governor is cheaper than target tracking at its best target (at AWS's recommended target where no target meets the objective); above the horizontal line it meets the objective. Dots in the green quadrant (or on its edges) are wins.</p>
${chart(report)}
<h2>Every cell</h2>
${table(report)}
${notes.length > 0 ? `<h2>Bounds that bound</h2><ul id="notes">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
