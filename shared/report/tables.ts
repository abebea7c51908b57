/**
 * The report's tables, rendered on the server as plain HTML so they read without the script
 * (and in a mail or a screen reader): the summary side by side, Governor's reason counts, and
 * the scenario. Every text from the result is escaped.
 */
import { objectiveText } from '../backtest/attainment.ts';
import { policyLabel } from '../backtest/table.ts';
import type { BacktestResult, PolicySummary } from '../backtest/types.ts';
import { unitCost } from '../backtest/unit-cost.ts';
import { escapeHtml, formatDuration, formatNumber, formatRatio, formatShare, formatUsd } from './format.ts';
import { colorOf, isOracle } from './payload.ts';

const swatch = (color: string): string =>
  `<span class="swatch" style="background:${color}" aria-hidden="true"></span>`;

const num = (text: string): string => `<td class="num">${text}</td>`;

/** The oracle as a row, when the backtest did not list it among the policies. */
function oracleSummary(result: BacktestResult): PolicySummary {
  // The scored minutes only, as every policy's row (held-out scoring: --score-from).
  const instanceMinutes = result.oracle.slice(result.trace.scoreFrom ?? 0).reduce((sum, n) => sum + n, 0);
  return {
    name: 'oracle (floor)',
    instanceMinutes,
    costUsd: (instanceMinutes / 60) * result.scenario.pricePerInstanceHour,
    costVsOracle: 1,
    violationMinutes: 0,
    violationRatio: 0,
    requestsInViolationRatio: 0,
    scalingActions: 0,
  };
}

const usdOrNone = (x: number | null | undefined): string => (x == null ? '–' : formatUsd(x));

/**
 * The summary with its unit costs: as runBacktest set them, or computed here from the series for
 * a result made without them (the figures per million tokens need the trace, so they stay absent).
 */
function withUnitCost(
  s: PolicySummary,
  violations: readonly number[],
  result: BacktestResult,
): PolicySummary {
  if (s.costPer1kRequestsUsd !== undefined) return s;
  const figures = unitCost({
    costUsd: s.costUsd,
    requests: result.demand,
    tokens: null,
    violationMinutes: violations,
    scoreFrom: result.trace.scoreFrom ?? 0,
  });
  return { ...s, ...figures, costPerMillionTokensUsd: undefined };
}

function summaryRow(s: PolicySummary, color: string | null, tokens: boolean): string {
  const name = `${color ? swatch(color) : swatch('transparent')}${escapeHtml(policyLabel(s))}`;
  return [
    `<tr><th scope="row">${name}</th>`,
    num(formatNumber(s.instanceMinutes / 60, 1)),
    num(formatUsd(s.costUsd)),
    num(formatRatio(s.costVsOracle)),
    num(formatNumber(s.violationMinutes)),
    num(formatShare(s.violationRatio)),
    num(formatShare(s.requestsInViolationRatio)),
    num(s.attainment === undefined ? '–' : formatShare(s.attainment)),
    num(s.budgetSpent === undefined ? '–' : `${formatNumber(100 * s.budgetSpent)} %`),
    num(formatNumber(s.scalingActions)),
    num(usdOrNone(s.costPer1kRequestsUsd)),
    num(usdOrNone(s.costPer1kRequestsWithinSloUsd)),
    tokens ? num(usdOrNone(s.costPerMillionTokensUsd)) : '',
    '</tr>',
  ].join('');
}

const COLUMNS = [
  'Instance-hours',
  'Cost',
  'Cost / oracle',
  'SLO violation minutes',
  'Share of minutes violating',
  'Share of requests in violating minutes',
  'Share of minutes within the SLO',
  'Error budget spent',
  'Scaling actions',
  'Cost per 1,000 requests',
  'Cost per 1,000 requests within the SLO',
];
const TOKEN_COLUMN = 'Cost per million tokens';

/** The objective and what the budget column means, when the run was judged against one. */
function objectiveCaption({ slo, trace }: BacktestResult): string {
  if (!slo) return '';
  const o = slo.objective;
  const days = formatNumber(o.windowMinutes / 1440);
  const longer =
    trace.minutes - (trace.scoreFrom ?? 0) > o.windowMinutes
      ? ` The run is longer than the window: the share within the SLO and the budget are each policy's worst ${days}-day window.`
      : '';
  return ` Objective: ${escapeHtml(objectiveText(o))} within the SLO over ${days} days; budget spent is (1 - share within) / (1 - objective), 100 % all of it.${longer}`;
}

export function summaryTable(result: BacktestResult): string {
  const summaries = result.policies.map((p) => withUnitCost(p.summary, p.series.violationMinutes, result));
  const tokens = summaries.some((s) => s.costPerMillionTokensUsd != null);
  const rows = summaries.map((s, i) => summaryRow(s, colorOf(i), tokens));
  if (!result.policies.some((p) => isOracle(p.summary.name)))
    rows.push(summaryRow(withUnitCost(oracleSummary(result), [], result), null, tokens));
  const price = formatUsd(result.scenario.pricePerInstanceHour);
  const head = [...COLUMNS, ...(tokens ? [TOKEN_COLUMN] : [])]
    .map((c) => `<th scope="col" class="num">${c}</th>`)
    .join('');
  return `<div class="table-box"><table class="summary" id="summary-table">
<caption>Every policy over the same ${escapeHtml(formatDuration(result.demand.length))} of traffic, at ${price} per instance-hour.
Cost / oracle is the cost against the least capacity that meets the SLO each minute. Cost per 1,000 requests counts
every request, those in violating minutes too; within the SLO, only those in minutes that met it.${objectiveCaption(result)}</caption>
<thead><tr><th scope="col">Policy</th>${head}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>`;
}

/** Reason codes (rows, most frequent first) against the policies that report them (columns). */
export function reasonTable(result: BacktestResult): string {
  const governed = result.policies.filter((p) => p.summary.reasonCounts);
  if (governed.length === 0) return '';
  const totals = new Map<string, number>();
  for (const p of governed) {
    for (const [code, n] of Object.entries(p.summary.reasonCounts!))
      totals.set(code, (totals.get(code) ?? 0) + (n ?? 0));
  }
  const codes = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  const head = governed.map((p) => `<th scope="col" class="num">${escapeHtml(p.summary.name)}</th>`).join('');
  const body = codes.map((code) => {
    const cells = governed
      .map((p) => num(formatNumber(p.summary.reasonCounts![code as never] ?? 0)))
      .join('');
    return `<tr><th scope="row"><code>${escapeHtml(code)}</code></th>${cells}</tr>`;
  });
  return `<p class="how">How often each reason code shaped a decision: the primary reason and every limiting step
(a decision can carry several).</p>
<div class="table-box"><table class="reasons" id="reason-table">
<caption>Decisions per reason code</caption>
<thead><tr><th scope="col">Reason</th>${head}</tr></thead>
<tbody>
${body.join('\n')}
</tbody></table></div>`;
}

/** The scenario and the trace, as a definition list. */
export function scenarioList(result: BacktestResult): string {
  const s = result.scenario;
  const t = result.trace;
  const items: [string, string][] = [
    ['Trace', `${escapeHtml(t.name)} (${formatDuration(t.minutes)}, per-${t.resolution} data)`],
    [
      'Requests',
      `${formatNumber(t.totalRequests)} in all; busiest minute ${formatNumber(t.peakRequestsPerMinute)}`,
    ],
    ['Instance capacity at the SLO', `${formatNumber(s.mu, 2)} requests per minute (mu)`],
    ['Fleet at the busiest minute', `${formatNumber(s.peakInstances)} instances`],
    ['SLO', `p95 latency reached at ${formatNumber(s.sloUtilization * 100)} % utilization`],
    [
      'Start-up',
      `${formatNumber(s.coldStartMinutes)} min cold, ${formatNumber(s.warmStartMinutes)} min from a warm pool`,
    ],
    ['Metric delay', `${formatNumber(s.metricDelayMinutes)} min`],
    ['Capacity bounds', `${formatNumber(s.minCapacity)} to ${formatNumber(s.maxCapacity)} instances`],
    ['Price', `${formatUsd(s.pricePerInstanceHour)} per instance-hour`],
  ];
  if (t.scoreFrom !== undefined) {
    items.push([
      'Scored',
      `from minute ${formatNumber(t.scoreFrom)} (${formatDuration(t.scoreFrom)} in) to the end: every policy ran the whole trace, the figures count ${formatDuration(t.minutes - t.scoreFrom)}`,
    ]);
  }
  return `<dl class="scenario">${items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}
