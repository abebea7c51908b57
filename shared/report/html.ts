/**
 * The backtest's HTML report: one self-contained file an operator opens from disk. Nothing is
 * fetched when it is viewed: uPlot's script and stylesheet are read from node_modules at render
 * time and inlined, the page's own script (client/) is bundled with esbuild and inlined, the
 * data is embedded as JSON, and a Content-Security-Policy forbids every request besides.
 * Size, measured: 501 kB for the 27-day NASA trace (39,693 minutes, six policies and the
 * oracle, ~3,900 decisions; nothing downsampled), of which uPlot is 51 kB and the page's script
 * 13 kB.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import esbuild from 'esbuild';
import type { BacktestResult } from '../backtest/types.ts';
import { costSection } from './cost-chart.ts';
import { escapeHtml, formatDuration, formatNumber, jsonForScript } from './format.ts';
import { contentSecurityPolicy, inline, uplotFiles } from './inline.ts';
import { buildPayload, isOracle } from './payload.ts';
import { reasonTable, scenarioList, summaryTable } from './tables.ts';
import { shownAtStart } from './view.ts';

function clientBundle(): string {
  const built = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL('./client/main.js', import.meta.url))],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}

function assets(): { uplotJs: string; uplotCss: string; css: string; js: string } {
  const uplot = uplotFiles();
  return {
    uplotJs: uplot.js,
    uplotCss: uplot.css,
    css: readFileSync(new URL('./report.css', import.meta.url), 'utf8'),
    js: clientBundle(),
  };
}

/** "40 instances at peak, SLO at 80 % utilization, 8 min cold start". */
function scenarioLine(result: BacktestResult): string {
  const s = result.scenario;
  return `${formatNumber(s.peakInstances)} instances at peak, SLO at ${formatNumber(s.sloUtilization * 100)} % utilization, ${formatNumber(s.coldStartMinutes)} min cold start`;
}

/** What the chart opens on, in words: the busiest day, and the policies drawn at first (view.ts). */
function opening(result: BacktestResult): string {
  const drawn = result.policies.map((p) => p.summary.name).filter((name) => !isOracle(name));
  const on = shownAtStart(drawn);
  const names = drawn.filter((_, i) => on[i]).map(escapeHtml);
  const day = 'The chart opens on the busiest day (the most requests)';
  if (names.length === 0) return `${day}.`;
  const rest = drawn.length > names.length ? '; tick another policy to add it' : '';
  return `${day} with ${names.join(' and ')}${rest}.`;
}

function chartSection(result: BacktestResult): string {
  const forecast = result.forecast
    ? ' The blue band under the demand is the forecast (p50 to p90, lighter to p99), from its first minute on.'
    : '';
  return `<section aria-labelledby="chart-h">
<h2 id="chart-h">Demand and capacity</h2>
<p class="how">Each policy's ready instances as a stepped line, over the oracle's capacity (grey area: the least
that meets the SLO each minute) and the demand (black, in instances on the left axis and requests per minute on
the right). Where the demand rises above a policy's line, that policy is short.${forecast}
${opening(result)}
Drag across the chart to zoom, double-click for the whole trace; hover a marker (▲ scale-out, ▼ scale-in, ◆ hold)
for the decision's reasons. When decisions are too dense to draw apart, they show as ticks along the top edge: zoom in.</p>
<div class="controls">
<fieldset><legend>Policies</legend><div id="policy-toggles"></div></fieldset>
<fieldset><legend>Show</legend><div id="layer-toggles"></div></fieldset>
</div>
<p id="report-error" role="alert" hidden></p>
<noscript><p class="how">The charts need JavaScript; the tables hold every figure.</p></noscript>
<figure id="chart-wrap" aria-labelledby="chart-h" tabindex="-1">
<div class="view-bar">
<p id="view-range" aria-live="polite"></p>
<div id="zoom-buttons" role="group" aria-label="Zoom"></div>
</div>
<div id="chart-main"></div>
<p class="strip-title">SLO-violation minutes</p>
<div id="chart-violations"></div>
<div id="tooltip" role="tooltip" hidden></div>
</figure>
</section>`;
}

function decisionSection(result: BacktestResult): string {
  const reasons = reasonTable(result);
  if (!reasons && !result.policies.some((p) => (p.decisions ?? []).length > 0)) return '';
  return `<section aria-labelledby="decisions-h">
<h2 id="decisions-h">Governor's decisions</h2>
${reasons}
<div class="log-box">
<table class="log" id="decision-log-table">
<caption id="decision-log-caption"></caption>
<thead><tr><th scope="col">Time</th><th scope="col">Policy</th><th scope="col">Action</th><th scope="col" class="num">Instances</th>
<th scope="col">Reasons</th><th scope="col">Message</th></tr></thead>
<tbody id="decision-log"></tbody>
</table>
</div>
</section>`;
}

export function renderHtmlReport(result: BacktestResult): string {
  const payload = buildPayload(result);
  const a = assets();
  const scripts = [inline(a.uplotJs, 'script'), inline(a.js, 'script')];
  const trace = escapeHtml(result.trace.name);
  const title = `Governor backtest: ${trace}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(scripts)}">
<link rel="icon" href="data:,">
<title>${title} (${escapeHtml(scenarioLine(result))})</title>
<style>${inline(a.uplotCss, 'style')}</style>
<style>${inline(a.css, 'style')}</style>
</head>
<body>
<header>
<h1>${title}</h1>
${
  result.slo?.verdict
    ? `<p id="verdict" class="verdict ${result.slo.verdict.outcome}">${escapeHtml(result.slo.verdict.sentence)}</p>
`
    : ''
}<p>${formatDuration(payload.minutes)} of traffic · ${escapeHtml(scenarioLine(result))}</p>
</header>
<main>
<section aria-labelledby="summary-h">
<h2 id="summary-h">Summary</h2>
${summaryTable(result)}
</section>
${chartSection(result)}
${costSection(result)}
${decisionSection(result)}
<section aria-labelledby="scenario-h">
<h2 id="scenario-h">Scenario</h2>
${scenarioList(result)}
</section>
</main>
<footer>Made by <code>governor backtest</code>. Charts by uPlot (MIT licence), inlined.</footer>
<script type="application/json" id="report-data">${jsonForScript(payload)}</script>
<script>${scripts[0]}</script>
<script>${scripts[1]}</script>
</body>
</html>
`;
}
