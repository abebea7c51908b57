/**
 * The tune report as one self-contained page with no script (a Content-Security-Policy of
 * `default-src 'none'`, inline styles only): the Pareto front of the training part (cost against
 * violation minutes, every candidate run to the end a dot, those stopped early counted and not
 * drawn, the front drawn through the ones no other beats on both), with the objective, the per-fold goal, target tracking, the starting policy and the
 * tuned one marked; the verdict first (held-out attainment against the objective, cost against
 * the starting policy and target tracking), then the held-out part side by side, what was
 * written, and what changed.
 */
import { maxOf, minOf } from '../arrays/extent.ts';
import { escapeHtml, formatNumber, formatRatio, formatShare } from '../report/format.ts';
import { changeList, partRows, stoppedEarly, type TuneReport } from './report.ts';

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1f2328;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px}p.how{color:#57606a;margin:4px 0 10px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:4px 8px;border:1px solid #d0d7de;text-align:right}
th{background:#f6f8fa}td.l,th.l{text-align:left}.verdict{font-size:16px}.win{color:#1a7f37}.loss{color:#cf222e}
svg text{font:11px system-ui,sans-serif;fill:#57606a}`;

interface Point {
  costVsOracle: number;
  violationRatio: number;
}

function chart(r: TuneReport): string {
  const W = 760;
  const H = 380;
  const pad = 56;
  const marks: [string, Point, string][] = [
    ['target tracking', r.training.baseline, '#cf222e'],
    ['starting policy', r.training.start, '#1b6ca8'],
    ['tuned', r.training.tuned, '#1a7f37'],
  ];
  const all: Point[] = [...r.candidates, ...marks.map((m) => m[1])];
  const xMin = minOf(all.map((p) => p.costVsOracle)) * 0.97;
  const xMax = maxOf(all.map((p) => p.costVsOracle)) * 1.03;
  const objective = 1 - r.objective.minutes;
  const yMax =
    maxOf(
      all.map((p) => p.violationRatio),
      Math.max(0.001, objective),
    ) * 1.05;
  const px = (x: number) => pad + ((x - xMin) / (xMax - xMin)) * (W - 2 * pad);
  const py = (y: number) => H - pad - (y / yMax) * (H - 2 * pad);
  const dots = r.candidates
    .map(
      (p) =>
        `<circle class="candidate" cx="${px(p.costVsOracle).toFixed(1)}" cy="${py(p.violationRatio).toFixed(1)}" r="2.5" fill="#8c959f" fill-opacity="0.45"/>`,
    )
    .join('');
  const front = r.front
    .map((p) => `${px(p.costVsOracle).toFixed(1)},${py(p.violationRatio).toFixed(1)}`)
    .join(' ');
  const goal = py(r.goal.maxViolationRatio);
  const limit = py(objective);
  const marked = marks
    .map(
      ([name, p, colour]) =>
        `<circle class="mark" data-name="${name}" cx="${px(p.costVsOracle).toFixed(1)}" cy="${py(p.violationRatio).toFixed(1)}" r="6" fill="${colour}" stroke="#fff" stroke-width="1.5"><title>${name}: ${formatRatio(p.costVsOracle)} of the oracle, ${formatShare(p.violationRatio)} of minutes in violation</title></circle>`,
    )
    .join('');
  const legend = marks
    .map(
      ([name, , colour], i) =>
        `<circle cx="${pad + 10 + i * 150}" cy="${pad - 30}" r="5" fill="${colour}"/><text x="${pad + 20 + i * 150}" y="${pad - 26}">${name}</text>`,
    )
    .join('');
  return `<svg id="pareto" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Cost against violation minutes of every candidate on the training part">
<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#8c959f"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="#8c959f"/>
<line x1="${pad}" y1="${goal.toFixed(1)}" x2="${W - pad}" y2="${goal.toFixed(1)}" stroke="#bf8700" stroke-dasharray="4 3"/><text x="${W - pad}" y="${(goal - 4).toFixed(1)}" text-anchor="end">goal (each fold)</text>
<line id="objective" x1="${pad}" y1="${limit.toFixed(1)}" x2="${W - pad}" y2="${limit.toFixed(1)}" stroke="#cf222e" stroke-dasharray="2 3"/><text x="${pad + 4}" y="${(limit - 4).toFixed(1)}">objective</text>
<text x="${W / 2}" y="${H - 18}" text-anchor="middle">cost / oracle (training part)</text><text x="14" y="${H / 2}" transform="rotate(-90 14 ${H / 2})" text-anchor="middle">share of minutes in violation</text>
<text x="${pad}" y="${H - pad + 14}">${xMin.toFixed(2)}x</text><text x="${W - pad}" y="${H - pad + 14}" text-anchor="end">${xMax.toFixed(2)}x</text><text x="${pad - 4}" y="${pad + 4}" text-anchor="end">${formatShare(yMax)}</text>
${dots}<polyline id="front" points="${front}" fill="none" stroke="#1f2328" stroke-width="1.5"/>${marked}${legend}</svg>`;
}

function table(r: TuneReport, part: 'training' | 'heldOut', startName: string): string {
  const rows = partRows(r, part, startName);
  const folds = part === 'training';
  const requests = r.objective.requests !== null;
  const head = `<tr><th class="l">policy</th><th>x oracle</th><th>attainment</th>${folds ? '<th>worst fold</th>' : ''}${requests ? '<th>of requests</th>' : ''}<th>viol. min</th><th>actions</th></tr>`;
  const body = rows
    .map(
      (x) =>
        `<tr><td class="l">${escapeHtml(x.name)}</td><td>${formatRatio(x.costVsOracle)}</td><td>${formatShare(x.attainment)}</td>${folds ? `<td>${formatShare(x.worstFold ?? 0)}</td>` : ''}${requests ? `<td>${formatShare(x.requestsAttainment)}</td>` : ''}<td>${formatNumber(x.violationMinutes)}</td><td>${formatNumber(x.scalingActions)}</td></tr>`,
    )
    .join('');
  return `<table id="${part}"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

export function renderTuneHtml(r: TuneReport, startName: string): string {
  const changes = r.changes.length
    ? `<ul id="changes">${r.changes.map(([k, a, b]) => `<li><code>${escapeHtml(k)}</code>: ${escapeHtml(String(a ?? 'default'))} &rarr; <b>${escapeHtml(String(b))}</b></li>`).join('')}</ul>`
    : `<p id="changes">${escapeHtml(changeList(r))}.</p>`;
  const v = r.verdict;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Governor tune: ${escapeHtml(r.targetId)} on ${escapeHtml(r.trace)}</title><style>${CSS}</style></head><body>
<h1>Governor tune: ${escapeHtml(r.targetId)} on ${escapeHtml(r.trace)}</h1>
<p class="how">Trained on minutes 0 to ${formatNumber(r.split)} (${(r.split / 1440).toFixed(1)} days); judged on minutes ${formatNumber(r.split)} to ${formatNumber(r.minutes)}, which the search never saw. Objective: ${escapeHtml(r.objective.text)}. Goal: the lowest cost with ${escapeHtml(r.goal.source)}. ${formatNumber(r.search.candidates)} candidates, seed ${r.search.seed} (stopped: ${escapeHtml(r.search.stoppedBy)}); ${escapeHtml(stoppedEarly(r.search.stoppedEarly))}; ${r.search.seconds.toFixed(1)} s.</p>
<p class="verdict ${v.meets ? 'win' : 'loss'}" id="verdict">${escapeHtml(v.sentence)}.</p>
<p id="written">${escapeHtml(v.written)}.</p>
<h2>Held-out part</h2>
${table(r, 'heldOut', startName)}
<h2>Training part: cost against violations</h2>
<p class="how">Every candidate the search ran over the whole training part is a grey dot (${formatNumber(r.search.stoppedEarly)} stopped early are not: they could no longer qualify, or no longer beat the best candidate so far); the line joins the ones no other candidate beats on both cost and violation minutes (the Pareto front); the dashed lines are the goal each fold must hold and the objective itself.</p>
${chart(r)}
${table(r, 'training', startName)}
<h2>${v.kept ? 'What the search proposed (not written)' : 'What changed'}</h2>
${changes}
</body></html>
`;
}
