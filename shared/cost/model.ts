/**
 * What the control plane itself costs a month for a policy's targets: the counts come from the
 * policy (targets, signals, SLO, forecast, capacity mix), the template (shared/cost/stack.ts), the
 * scale-target state machine (shared/cost/transitions.ts) and the evaluator's own formulas
 * (buildQueries, the EMF catalogue); the prices from shared/cost/prices.ts; what neither says
 * from shared/cost/assumptions.ts. Pure: the CLI reads the files.
 *
 * Worked example (one target of examples/policy.yaml, template defaults, tests/cost/model.test.ts):
 * the evaluate function runs 43,800 times a month at 0.512 GB for 98.2 ms: 2,202 GB-s, 2.94 cents.
 */

import type { TargetPolicy } from '../policy/schema.ts';
import { demandSources } from '../signals/demand.ts';
import { buildQueries } from '../signals/queries.ts';
import { sloOf } from '../slo/objective.ts';
import type { Assumptions } from './assumptions.ts';
import { type MetricSeries, serviceSeries, targetSeries } from './emf.ts';
import { CUSTOM_METRICS_FIRST_TIER, PRICES, type PriceName, SCHEDULER_FREE_INVOCATIONS } from './prices.ts';
import { HOURS_PER_MONTH, type StackFacts } from './stack.ts';
import { type ExecutionPath, transitionsPerChange } from './transitions.ts';

export interface CostLine {
  service: 'Lambda' | 'EventBridge Scheduler' | 'Step Functions' | 'DynamoDB' | 'CloudWatch' | 'X-Ray';
  item: string;
  quantity: number;
  price: PriceName;
  usd: number;
  /** Only with the template's Tracing=Active. */
  whenTracing?: true;
}

export interface CostInputs {
  targets: readonly TargetPolicy[];
  stack: StackFacts;
  /** The scale-target state machine's successful path for each SageMaker target kind. */
  scalePaths: Partial<Record<TargetPolicy['kind'], ExecutionPath>>;
  assumptions: Assumptions;
}

export interface CostReport {
  targets: number;
  lines: CostLine[];
  /** USD a month with the template's Tracing as deployed (Disabled by default). */
  monthlyUsd: number;
  /** USD a month with Tracing=Active: X-Ray's traces on top. */
  monthlyUsdWithTracing: number;
}

const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
const GB = 1024 ** 3;
const line = (
  service: CostLine['service'],
  item: string,
  quantity: number,
  price: PriceName,
  whenTracing?: true,
): CostLine => ({
  service,
  item,
  quantity,
  price,
  usd: quantity * PRICES[price].usd,
  ...(whenTracing ? { whenTracing } : {}),
});

/** Which targets each scheduled function works for, and its wall time per run (ms). */
function runMs(fn: string, targets: readonly TargetPolicy[], shards: number, a: Assumptions): number {
  if (fn === 'EvaluateFunction')
    return a.evaluateMs.base + (a.evaluateMs.perTarget * targets.length) / shards;
  if (fn === 'ForecastFunction')
    return a.forecastMs.base + a.forecastMs.perTarget * targets.filter((t) => t.forecast?.enabled).length;
  if (fn === 'MixFunction')
    return a.mixMs.base + a.mixMs.perTarget * targets.filter((t) => t.capacityMix).length;
  return a.otherMs;
}

function lambdaLines({ targets, stack, assumptions: a }: CostInputs): CostLine[] {
  const shards = stack.schedules.filter((s) => s.fn === 'EvaluateFunction').length || 1;
  const out: CostLine[] = [];
  for (const s of stack.schedules) {
    const fn = stack.functions[s.fn];
    if (!fn)
      throw new Error(`template: schedule ${s.id} invokes ${s.fn}, which is not a function of the stack`);
    const seconds = runMs(s.fn, targets, shards, a) / 1000;
    const gbSeconds = s.perMonth * (fn.memoryMb / 1024) * seconds;
    out.push(line('Lambda', `${s.fn} requests (${s.id}, ${s.expression})`, s.perMonth, 'lambdaRequest'));
    out.push(
      line(
        'Lambda',
        `${s.fn} duration (${fn.memoryMb} MB x ${Math.round(seconds * 1000)} ms)`,
        gbSeconds,
        fn.arch === 'arm64' ? 'lambdaArmGbSecond' : 'lambdaX86GbSecond',
      ),
    );
  }
  const scheduled = stack.schedules.reduce((n, s) => n + s.perMonth, 0);
  out.push(
    line(
      'EventBridge Scheduler',
      `${scheduled.toLocaleString('en-US')} invocations, 14M free`,
      Math.max(0, scheduled - SCHEDULER_FREE_INVOCATIONS),
      'schedulerInvocation',
    ),
  );
  return out;
}

/** Target-runs a month of the forecast and mix functions: each run plans its targets of that kind. */
function plannedRuns({ targets, stack }: CostInputs): number {
  const planned = (fn: string) =>
    targets.filter((t) =>
      fn === 'MixFunction' ? t.capacityMix : fn === 'ForecastFunction' && t.forecast?.enabled,
    ).length;
  return stack.schedules.reduce((n, s) => n + s.perMonth * planned(s.fn), 0);
}

/** Executions and transitions a month of the scale-target state machine. */
function executions({ targets, scalePaths, assumptions: a }: CostInputs): {
  executions: number;
  transitions: number;
  dynamoWrites: number;
  dynamoReads: number;
} {
  const total = { executions: 0, transitions: 0, dynamoWrites: 0, dynamoReads: 0 };
  for (const t of targets) {
    const path = scalePaths[t.kind];
    if (!path) continue; // an Auto Scaling group is set with SetDesiredCapacity, no execution
    const n = a.actionsPerDay * DAYS_PER_MONTH;
    total.executions += n;
    total.transitions += n * transitionsPerChange(path, a.changeSeconds);
    total.dynamoWrites += n * path.dynamoWrites;
    total.dynamoReads += n * path.dynamoReads;
  }
  return total;
}

function stepFunctionLines(inputs: CostInputs): CostLine[] {
  const { executions: n, transitions } = executions(inputs);
  const per = n > 0 ? Math.round(transitions / n) : 0;
  return [
    line(
      'Step Functions',
      `${Math.round(n).toLocaleString('en-US')} scale actions x ${per} transitions`,
      transitions,
      'stateTransition',
    ),
  ];
}

/** Bytes of a target's state item: the base item and its error-budget ledger, if any. */
const stateBytes = (t: TargetPolicy, a: Assumptions) => {
  const slo = sloOf(t);
  return a.stateBytes + (slo.control ? (slo.windowMinutes / 60 + 1) * a.ledgerBytesPerHour : 0);
};

function dynamoLines(inputs: CostInputs): CostLine[] {
  const { targets, stack, assumptions: a } = inputs;
  const ticks = stack.schedules.find((s) => s.fn === 'EvaluateFunction')?.perMonth ?? 0;
  let writes = 0;
  let reads = 0;
  for (const t of targets) {
    const state = stateBytes(t, a);
    // Each tick: the state item read (strongly consistent, per 4 KB), the claim (per 1 KB of the
    // item) and the decision record (per 1 KB); a capacity mix adds its PLAN item to the read.
    reads += ticks * (Math.ceil(state / 4096) + (t.capacityMix ? 1 : 0));
    writes += ticks * (Math.ceil(state / 1024) + Math.ceil(a.recordBytes / 1024));
  }
  const planned = plannedRuns(inputs);
  const sfn = executions(inputs);
  const records = targets.length * ticks * (stack.auditTtlDays / DAYS_PER_MONTH);
  const storedGb = (records * a.recordBytes + targets.reduce((n, t) => n + stateBytes(t, a), 0)) / GB;
  return [
    line(
      'DynamoDB',
      'writes: claims, decision records, plans, outcomes',
      writes + planned + sfn.dynamoWrites,
      'dynamoWriteUnit',
    ),
    line(
      'DynamoDB',
      'reads: state items (strongly consistent)',
      reads + planned + sfn.dynamoReads,
      'dynamoReadUnit',
    ),
    line(
      'DynamoDB',
      `storage: ${stack.auditTtlDays} days of decision records`,
      storedGb,
      'dynamoStorageGbMonth',
    ),
    ...(stack.pointInTimeRecovery
      ? [line('DynamoDB', 'point-in-time recovery', storedGb, 'dynamoPitrGbMonth')]
      : []),
  ];
}

/** Metrics a Metrics Insights alarm analyzes: the series it selects (at least one). */
function analyzed(
  alarm: { metric: string; schema: string[] | null },
  series: readonly MetricSeries[],
): number {
  const key = (d: string[]) => [...d].sort().join(',');
  const n = series.filter(
    (s) => s.name === alarm.metric && (alarm.schema === null || key(s.dimensions) === key(alarm.schema)),
  ).length;
  return Math.max(1, n);
}

function metricsLines({ targets, stack, assumptions: a }: CostInputs): CostLine[] {
  const ticks = stack.schedules.find((s) => s.fn === 'EvaluateFunction')?.perMonth ?? 0;
  const runs = (fn: string) => stack.schedules.filter((s) => s.fn === fn).reduce((n, s) => n + s.perMonth, 0);
  const forecastTargets = targets.filter((t) => t.forecast?.enabled);
  const mixTargets = targets.filter((t) => t.capacityMix);
  const requested =
    buildQueries(targets).length * ticks +
    forecastTargets.reduce((n, t) => n + demandSources(t).length, 0) * runs('ForecastFunction') +
    mixTargets.reduce((n, t) => n + demandSources(t).length, 0) * runs('MixFunction');
  const series = [...targets.flatMap(targetSeries), ...serviceSeries()];
  const custom = series.length + targets.length * a.reasonsPerHour;
  const listed = stack.alarms.reduce((n, x) => n + (x.kind === 'metrics' ? x.metrics : 0), 0);
  const insights = stack.alarms.reduce((n, x) => n + (x.kind === 'insights' ? analyzed(x, series) : 0), 0);
  return [
    line(
      'CloudWatch',
      `GetMetricData: ${buildQueries(targets).length} metrics a tick, history for forecast and mix`,
      requested,
      'getMetricDataMetric',
    ),
    line(
      'CloudWatch',
      `custom metrics (EMF): ${custom} series`,
      Math.min(custom, CUSTOM_METRICS_FIRST_TIER),
      'customMetricMonth',
    ),
    ...(custom > CUSTOM_METRICS_FIRST_TIER
      ? [
          line(
            'CloudWatch',
            'custom metrics past 10,000',
            custom - CUSTOM_METRICS_FIRST_TIER,
            'customMetricMonthNext',
          ),
        ]
      : []),
    line(
      'CloudWatch',
      `alarms: ${stack.alarms.filter((x) => x.kind === 'metrics').length} on ${listed} metrics`,
      listed,
      'alarmMetricMonth',
    ),
    line(
      'CloudWatch',
      `alarms: ${stack.alarms.filter((x) => x.kind === 'insights').length} Metrics Insights, ${insights} metrics analyzed`,
      insights,
      'insightsAlarmMetricMonth',
    ),
    line('CloudWatch', 'dashboard', stack.dashboards, 'dashboardMonth'),
  ];
}

function logLines(inputs: CostInputs): CostLine[] {
  const { targets, stack, assumptions: a } = inputs;
  const ticks = stack.schedules.find((s) => s.fn === 'EvaluateFunction')?.perMonth ?? 0;
  const invocations = stack.schedules.reduce((n, s) => n + s.perMonth, 0);
  const planned = plannedRuns(inputs);
  const sfn = stack.scaleStateMachine?.logsEveryState ? executions(inputs).transitions : 0;
  const bytes =
    targets.length * ticks * a.logBytesPerEvaluation +
    invocations * a.logBytesPerInvocation +
    planned * a.logBytesPerPlannedTarget +
    sfn * a.logBytesPerTransition;
  const gb = bytes / GB;
  return [
    line('CloudWatch', 'Logs ingested: decision lines, EMF, state machine events', gb, 'logIngestGb'),
    line(
      'CloudWatch',
      `Logs stored: ${stack.logRetentionDays} days kept`,
      gb * (stack.logRetentionDays / DAYS_PER_MONTH),
      'logStoreGbMonth',
    ),
  ];
}

function xrayLines(inputs: CostInputs): CostLine[] {
  // One trace per invocation and per execution: at a few a minute the default sampling rule's
  // reservoir (one a second) records every one.
  const traces = inputs.stack.schedules.reduce((n, s) => n + s.perMonth, 0) + executions(inputs).executions;
  return [line('X-Ray', 'traces: every invocation and execution', traces, 'xrayTrace', true)];
}

/** The month's cost of the control plane for `targets`, line by line. */
export function monthlyCost(inputs: CostInputs): CostReport {
  const lines = [
    ...lambdaLines(inputs),
    ...stepFunctionLines(inputs),
    ...dynamoLines(inputs),
    ...metricsLines(inputs),
    ...logLines(inputs),
    ...xrayLines(inputs),
  ];
  const sum = (list: CostLine[]) => list.reduce((n, l) => n + l.usd, 0);
  const base = sum(lines.filter((l) => !l.whenTracing));
  const xray = sum(lines.filter((l) => l.whenTracing));
  return {
    targets: inputs.targets.length,
    lines,
    monthlyUsd: inputs.stack.tracing ? base + xray : base,
    monthlyUsdWithTracing: base + xray,
  };
}
