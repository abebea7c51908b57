/**
 * The shadow report as one self-contained page (`governor shadow-report --html`): the verdict
 * first, the figures either way, then a uPlot chart of Governor's shadow capacity against the
 * fleet's, minute by minute, with the fleet's latency on its own axis and the SLO as a line.
 * uPlot is inlined from node_modules as the backtest report inlines it (./html.ts), the data is
 * embedded as JSON, the page's script is a few lines inlined here, and a Content-Security-Policy
 * names both scripts by their SHA-256 and forbids any request. The page fits a 1,280 px window.
 */
import { escapeHtml, jsonForScript } from './format.ts';
import { contentSecurityPolicy, inline, uplotFiles } from './inline.ts';

export interface ShadowPage {
  title: string;
  verdict: string;
  /** [label, Governor, fleet] or [label, text]. */
  rows: [string, string, string?][];
  /** Epoch seconds of each minute, and the three series (null: no value that minute). */
  chart: {
    x: number[];
    governor: (number | null)[];
    fleet: (number | null)[];
    latency: (number | null)[] | null;
    sloMs: number | null;
    latencyLabel: string;
  };
}

/** Draws the chart from the embedded data; shows one line on a script failure. */
const PAGE_SCRIPT = `(() => {
  const d = JSON.parse(document.getElementById('shadow-data').textContent);
  const el = document.getElementById('shadow-chart');
  const series = [{}, { label: 'Governor (shadow)', stroke: '#1b6ca8', width: 2, paths: uPlot.paths.stepped({ align: 1 }), scale: 'n' },
    { label: 'the fleet', stroke: '#cf222e', width: 1.5, paths: uPlot.paths.stepped({ align: 1 }), scale: 'n' }];
  const data = [d.x, d.governor, d.fleet];
  const axes = [{}, { scale: 'n', label: 'instances' }];
  if (d.latency) {
    series.push({ label: d.latencyLabel, stroke: '#8c959f', width: 1, scale: 'ms' });
    data.push(d.latency);
    axes.push({ scale: 'ms', side: 1, label: 'ms', grid: { show: false } });
    if (d.sloMs !== null) { series.push({ label: 'SLO', stroke: '#8c959f', dash: [6, 4], width: 1, scale: 'ms' }); data.push(d.x.map(() => d.sloMs)); }
  }
  try {
    const tzDate = (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC');
    new uPlot({ width: Math.min(1180, el.clientWidth), height: 380, series, axes, tzDate, scales: { x: { time: true } } }, data, el);
  } catch (e) { el.textContent = 'The chart could not be drawn: ' + e.message; }
})();`;

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#1f2328;padding:0 16px;box-sizing:border-box}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px}.verdict{font-size:16px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:4px 8px;border:1px solid #d0d7de;text-align:right}
th{background:#f6f8fa}td.l,th.l{text-align:left}#shadow-chart{width:100%;overflow:hidden}`;

function table(rows: ShadowPage['rows']): string {
  const body = rows
    .map(([label, a, b]) =>
      b === undefined
        ? `<tr><th scope="row" class="l">${escapeHtml(label)}</th><td class="l" colspan="2">${escapeHtml(a)}</td></tr>`
        : `<tr><th scope="row" class="l">${escapeHtml(label)}</th><td>${escapeHtml(a)}</td><td>${escapeHtml(b)}</td></tr>`,
    )
    .join('\n');
  return `<table id="figures"><thead><tr><th></th><th scope="col">Governor (shadow)</th><th scope="col">the fleet</th></tr></thead>\n<tbody>${body}</tbody></table>`;
}

export function renderShadowHtml(page: ShadowPage): string {
  const uplot = uplotFiles();
  const uplotJs = inline(uplot.js, 'script');
  const uplotCss = uplot.css;
  const csp = contentSecurityPolicy([uplotJs, PAGE_SCRIPT]);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="icon" href="data:,">
<title>${escapeHtml(page.title)}</title>
<style>${uplotCss}</style>
<style>${CSS}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<p class="verdict" id="verdict">${escapeHtml(page.verdict)}</p>
${table(page.rows)}
<h2>Capacity, minute by minute</h2>
<p>Governor's shadow decisions (blue) against the instances the fleet ran (red)${page.chart.latency ? ', and the fleet\u2019s latency (grey, right axis) with its SLO (dashed)' : ''}. Where blue is under red, Governor would have run fewer. Times in UTC. Drag to zoom, double-click to see it all.</p>
<div id="shadow-chart"></div>
<script type="application/json" id="shadow-data">${jsonForScript(page.chart)}</script>
<script>${uplotJs}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
