/**
 * What the control plane itself costs a month for a policy's targets: the counts come from the
 * policy (targets, signals, SLO, forecast, capacity mix), the template (shared/cost/stack.ts), the
 * scale-target state machine (shared/cost/transitions.ts) and the evaluator's own formulas
 * (buildQueries, the EMF catalogue); the prices from shared/cost/prices.ts; what neither says
 * from shared/cost/assumptions.ts. Pure: the CLI reads the files.
 *
 * Worked example (one target of examples/policy.yaml, template defaults): the evaluate function
 * runs 43,800 times a month at 0.5 GB for 98.2 ms (90 + 8.2 a target): 2,151 GB-s, 2.87 cents.
 * tests/cost/model.test.ts works a smaller stack by hand, line by line.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';
import type { Assumptions } from './assumptions.ts';
import { logLines, metricsLines, xrayLines } from './cloudwatch.ts';
import {
  type CostInputs,
  type CostLine,
  DAYS_PER_MONTH,
  executions,
  GB,
  line,
  plannedRuns,
} from './lines.ts';
import { SCHEDULER_FREE_INVOCATIONS } from './prices.ts';

export type { CostInputs, CostLine } from './lines.ts';

export interface CostReport {
  targets: number;
  lines: CostLine[];
  /** USD a month with the template's Tracing as deployed (Disabled by default). */
  monthlyUsd: number;
  /** USD a month with Tracing=Active: X-Ray's traces on top. */
  monthlyUsdWithTracing: number;
}

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
