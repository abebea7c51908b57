/**
 * The backtest's terminal output: one header line for the trace, one for the scenario, a table
 * with one row per policy, then the governor's decisions per reason code. Plain text only (no
 * colours), so it pastes into issues and reads the same in CI logs.
 */
import { objectiveText } from './attainment.ts';
import { type Column as ColumnOf, renderColumns } from './columns.ts';
import type { BacktestResult, PolicySummary } from './types.ts';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const two = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const three = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
const percent = (x: number): string => `${two.format(100 * x)} %`;
/** USD per unit with three decimals (Twitter's 0.129 per 1,000 requests needs them); n/a for null. */
const unitUsd = (x: number | null | undefined): string => (x == null ? 'n/a' : three.format(x));

type Column = ColumnOf<PolicySummary>;

/** Budget spent as a whole percent: 93 %, 1,189 %. */
const budget = (x: number | undefined): string => (x === undefined ? 'n/a' : `${whole.format(100 * x)} %`);

/** The best-target row names its target: "aws-target-tracking-best (0.4 x sat.)". */
export function policyLabel(s: PolicySummary): string {
  if (s.targetOfSaturation === undefined) return s.name;
  const none = s.meetsObjective === false ? 'none meets; closest ' : '';
  return `${s.name} (${none}${s.targetOfSaturation} x sat.)`;
}

const BASE_COLUMNS: Column[] = [
  { head: 'policy', cell: policyLabel, left: true },
  { head: 'instance-h', cell: (s) => one.format(s.instanceMinutes / 60) },
  { head: 'cost USD', cell: (s) => two.format(s.costUsd) },
  { head: 'x oracle', cell: (s) => `${two.format(s.costVsOracle)}x` },
  { head: 'SLO viol. min', cell: (s) => whole.format(s.violationMinutes) },
  { head: 'of minutes', cell: (s) => percent(s.violationRatio) },
  { head: 'of requests', cell: (s) => percent(s.requestsInViolationRatio) },
  { head: 'SLO attained', cell: (s) => (s.attainment === undefined ? 'n/a' : percent(s.attainment)) },
  { head: 'budget spent', cell: (s) => budget(s.budgetSpent) },
  { head: 'actions', cell: (s) => whole.format(s.scalingActions) },
  { head: 'USD/1k req', cell: (s) => unitUsd(s.costPer1kRequestsUsd) },
  { head: 'USD/1k in SLO', cell: (s) => unitUsd(s.costPer1kRequestsWithinSloUsd) },
];

/** Shown only when the trace has token columns: a column of n/a would say nothing. */
const TOKEN_COLUMN: Column = { head: 'USD/M tokens', cell: (s) => unitUsd(s.costPerMillionTokensUsd) };

function table(rows: PolicySummary[]): string[] {
  const withTokens = rows.some((r) => r.costPerMillionTokensUsd != null);
  return renderColumns(withTokens ? [...BASE_COLUMNS, TOKEN_COLUMN] : BASE_COLUMNS, rows);
}

function span(minutes: number): string {
  return minutes >= 2 * 1440 ? `${one.format(minutes / 1440)} days` : `${one.format(minutes / 60)} hours`;
}

export function formatReasonCounts(counts: PolicySummary['reasonCounts']): string {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.map(([code, n]) => `${code} ${whole.format(n)}`).join(', ');
}

/** The model options that are on, so a table never passes for the reference scenario when it is not. */
function optionsBeyondReference({ scenario: s }: BacktestResult): string[] {
  const on: string[] = [];
  if (s.outputTokenWeight != null)
    on.push(`token-aware work (an output token weighs ${s.outputTokenWeight} input tokens)`);
  if (s.noiseSeed != null) on.push(`Poisson noise, seed ${s.noiseSeed}`);
  if (s.warmPoolInstances) {
    on.push(
      `governor warm pool of ${s.warmPoolInstances} (warm start ${s.warmStartMinutes} min, idle at 5 %)`,
    );
  }
  return on;
}

/** After the table: the objective, the sweep and the saving at equal SLO, in numbers. */
function sloLines({ slo, trace }: BacktestResult): string[] {
  if (!slo) return [];
  const days = whole.format(slo.objective.windowMinutes / 1440);
  const scored = trace.minutes - (trace.scoreFrom ?? 0);
  const lines = [
    `objective: ${objectiveText(slo.objective)} within the SLO over ${days} days; budget spent = (1 - attained) / (1 - objective)`,
  ];
  if (scored > slo.objective.windowMinutes) {
    lines.push(
      `the run is longer than the window (${whole.format(scored / 1440)} days): attained and budget spent are each policy's worst ${days}-day window; "of minutes" counts the whole run`,
    );
  }
  if (slo.sweep.length === 0) return lines;
  const first = slo.sweep[0]!.fraction;
  const last = slo.sweep[slo.sweep.length - 1]!.fraction;
  const best = slo.best
    ? `the cheapest that meets the objective is ${slo.best.fraction} x saturation (${two.format(slo.best.costVsOracle)}x the oracle)`
    : 'none meets the objective';
  const saving =
    slo.savingAtEqualSlo === null
      ? "no target reaches governor's attainment"
      : `governor saves ${one.format(100 * slo.savingAtEqualSlo)} % at equal SLO (target tracking's cost at governor's attainment, linear between swept targets)`;
  lines.push(
    `target tracking swept over ${slo.sweep.length} targets, ${first} to ${last} x saturation: ${best}; ${saving}`,
  );
  return lines;
}

export function formatTable(result: BacktestResult): string {
  const { trace, scenario } = result;
  const header = [
    ...(result.slo?.verdict ? [result.slo.verdict.sentence] : []),
    `trace ${trace.name}: ${whole.format(trace.minutes)} minutes (${span(trace.minutes)}), ${whole.format(trace.totalRequests)} requests, peak ${whole.format(trace.peakRequestsPerMinute)} per minute`,
    `scenario: ${scenario.peakInstances} instances at peak; one serves ${two.format(scenario.mu)} requests/min at the SLO (saturates at ${two.format(scenario.muSat ?? scenario.mu / scenario.sloUtilization)}); cold start ${scenario.coldStartMinutes} min, metric delay ${scenario.metricDelayMinutes} min, ${two.format(scenario.pricePerInstanceHour)} USD per instance-hour`,
  ];
  if (trace.scoreFrom !== undefined) {
    const scored = trace.minutes - trace.scoreFrom;
    header.push(
      `scored from minute ${whole.format(trace.scoreFrom)} (${span(trace.scoreFrom)} in) to the end: ${whole.format(scored)} minutes (${span(scored)}); every policy ran the whole trace`,
    );
  }
  const extras = optionsBeyondReference(result);
  if (extras.length > 0) header.push(`beyond the reference: ${extras.join('; ')}`);
  header.push('');
  const lines = [...header, ...table(result.policies.map((p) => p.summary)), '', ...sloLines(result)];
  for (const p of result.policies) {
    if (p.summary.reasonCounts) {
      lines.push('', `${p.summary.name} decisions by reason: ${formatReasonCounts(p.summary.reasonCounts)}`);
    }
  }
  return lines.join('\n');
}

/** The --json file: the trace, the scenario and each policy's summary (no per-minute series). */
export function toJsonReport(result: BacktestResult): object {
  return {
    trace: result.trace,
    scenario: result.scenario,
    policies: result.policies.map(({ summary: s }) => ({
      name: s.name,
      instanceMinutes: s.instanceMinutes,
      costUsd: s.costUsd,
      costVsOracle: s.costVsOracle,
      violationMinutes: s.violationMinutes,
      violationRatio: s.violationRatio,
      requestsInViolationRatio: s.requestsInViolationRatio,
      scalingActions: s.scalingActions,
      costPer1kRequestsUsd: s.costPer1kRequestsUsd ?? null,
      costPer1kRequestsWithinSloUsd: s.costPer1kRequestsWithinSloUsd ?? null,
      costPerMillionTokensUsd: s.costPerMillionTokensUsd ?? null,
      attainment: s.attainment ?? null,
      ...(s.traceAttainment !== undefined
        ? { traceAttainment: s.traceAttainment, worstWindowFrom: s.worstWindowFrom ?? null }
        : {}),
      requestsAttainment: s.requestsAttainment ?? null,
      budgetSpent: s.budgetSpent ?? null,
      meetsObjective: s.meetsObjective ?? null,
      ...(s.targetOfSaturation !== undefined ? { targetOfSaturation: s.targetOfSaturation } : {}),
      ...(s.reasonCounts ? { reasonCounts: s.reasonCounts } : {}),
    })),
    ...(result.slo ? { slo: result.slo } : {}),
  };
}
