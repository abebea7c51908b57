/**
 * The custom metrics Governor's functions publish through EMF, by target: what CloudWatch bills
 * as custom metrics (one per metric name and set of dimension values, prorated by the hour it is
 * sent in). The lists are the functions' own (functions/evaluate/telemetry.ts,
 * functions/forecast/telemetry.ts, functions/mix/telemetry.ts);
 * tests/cost/emf.test.ts drives those telemetry modules with a recording Metrics and compares
 * every (name, dimensions) they publish with this catalogue, so a metric added there and not here
 * fails that test.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';

export interface MetricSeries {
  /** The function that publishes it. */
  fn: 'evaluate' | 'forecast' | 'mix';
  name: string;
  /** Dimension names, sorted (TargetId's value is the target's id). */
  dimensions: string[];
}

const T = ['TargetId'];

/** Every evaluation of a target with a decision (functions/evaluate/telemetry.ts). */
export const EVALUATE_PER_TARGET = [
  'DesiredCapacity',
  'CurrentCapacity',
  'Decisions',
  'SuccessfulEvaluations',
  'ActionFailures',
  'EvaluationLatency',
] as const;
/** With an error-budget control; BurnRate has a Window dimension (fast, slow) as well. */
export const EVALUATE_SLO = [
  'SloAttainment',
  'ErrorBudgetRemaining',
  'HeadroomFactor',
  'ErrorBudgetAtRisk',
] as const;
export const BURN_WINDOWS = ['fast', 'slow'] as const;
/** Per forecast target each hourly run (functions/forecast/telemetry.ts). */
export const FORECAST_PER_TARGET = ['ForecastFloor', 'ForecastDemandP50', 'ForecastDemandP90'] as const;
/** Per capacity-mix target each run (functions/mix/telemetry.ts). */
export const MIX_PER_TARGET = [
  'PlannedUsdPerHour',
  'PlannedSpotInstances',
  'PlannedOnDemandInstances',
  'BudgetCapped',
  'CostPer1kRequestsUsd',
] as const;
/** [service] metrics the evaluate function sends on every invocation. */
export const EVALUATE_PER_INVOCATION = ['SuccessfulEvaluations', 'EvaluationLatency'] as const;

/**
 * The series one target publishes every hour. `Decisions` by [TargetId, Reason] is one more
 * series per reason code the target's decisions carry in the hour: `reasonsPerHour` of them
 * (an assumption: shared/cost/assumptions.ts).
 */
export function targetSeries(t: TargetPolicy): MetricSeries[] {
  const out: MetricSeries[] = EVALUATE_PER_TARGET.map((name) => ({ fn: 'evaluate', name, dimensions: T }));
  if (sloOf(t).control) {
    for (const name of EVALUATE_SLO) out.push({ fn: 'evaluate', name, dimensions: T });
    for (const _ of BURN_WINDOWS)
      out.push({ fn: 'evaluate', name: 'BurnRate', dimensions: ['TargetId', 'Window'] });
  }
  if (t.forecast?.enabled) {
    for (const name of FORECAST_PER_TARGET) out.push({ fn: 'forecast', name, dimensions: T });
  }
  if (t.capacityMix) {
    for (const name of MIX_PER_TARGET) out.push({ fn: 'mix', name, dimensions: T });
    if (t.kind === 'sagemaker-variant' && t.capacityMix.variantFallback)
      out.push({ fn: 'mix', name: 'VariantFallbackShifts', dimensions: T });
  }
  return out;
}

/** The [service] series sent every invocation of the evaluate function, whatever the targets. */
export const serviceSeries = (): MetricSeries[] =>
  EVALUATE_PER_INVOCATION.map((name) => ({ fn: 'evaluate', name, dimensions: ['service'] }));
