/**
 * Logs and metrics of the evaluate function, behind a small interface so tests and the CLI can
 * capture them. The Lambda implementation uses Powertools: the Logger writes one JSON line per
 * decision record; Metrics writes CloudWatch EMF (namespace from POWERTOOLS_METRICS_NAMESPACE,
 * "Governor").
 *
 * Metrics and their dimension sets (docs/operations.md, "Metrics"):
 *   [TargetId]          DesiredCapacity, CurrentCapacity, Decisions, ActionFailures,
 *                       EvaluationLatency (ms), SuccessfulEvaluations
 *   [TargetId, Reason]  Decisions (one per reason code of the decision)
 *   [TargetId]          with an SLO control (./slo.ts): SloAttainment (percent of the window's
 *                       observed minutes within the SLO), ErrorBudgetRemaining (percent of the
 *                       window's budget left; below 0 overspent), HeadroomFactor (the factor the
 *                       load targets were multiplied by), ErrorBudgetAtRisk (1: spent, or gone
 *                       before one more window at the slow burn rate; the template alarms on it)
 *   [TargetId, Window]  BurnRate (Window fast or slow: the windows' bad share over the allowed one)
 *   [service]           PolicyLoadFailures, SuccessfulEvaluations (one per invocation that
 *                       evaluated its targets), EvaluationLatency (ms, whole invocation),
 *                       AuditWriteFailures (decision records not written to the table; the
 *                       template alarms on it), DeadlineSkips (targets not started for lack of
 *                       time), ForeignEvents (events refused for their source, account or region)
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DecisionRecord } from '../../shared/apply/records.ts';

/** Counters of the control plane itself, with the [service] dimension. */
export type ControlMetric = 'AuditWriteFailures' | 'DeadlineSkips' | 'ForeignEvents';

export interface Telemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  /** One structured line per decision record, and its per-target metrics. */
  decision(record: DecisionRecord, latencyMs: number): void;
  policyLoadFailure(problems: string[]): void;
  /** The invocation evaluated every target it was asked to (whatever their outcomes). */
  invocationSucceeded(latencyMs: number): void;
  /** Adds to a control-plane counter (optional: the CLI and local runs emit no metrics). */
  count?(metric: ControlMetric, value: number): void;
}

const SERVICE_DIMENSION = { service: 'governor' };
type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * The error budget's [TargetId] metrics of a record decided under an SLO control: shares as
 * percent (99.5, not 0.995), as the dashboard and the alarm descriptions read them. A value the
 * budget does not have yet (attainment before any observed minute) is left out, not sent as 0.
 */
export function budgetMetrics(record: DecisionRecord): [string, Unit, number][] {
  const slo = record.inputs.slo;
  const h = record.decision?.headroom;
  if (!slo || !h) return [];
  return [
    ...(slo.attainment !== null
      ? [['SloAttainment', MetricUnit.Percent, slo.attainment * 100] as [string, Unit, number]]
      : []),
    ['ErrorBudgetRemaining', MetricUnit.Percent, h.remaining * 100],
    ['HeadroomFactor', MetricUnit.NoUnit, h.factor],
    ['ErrorBudgetAtRisk', MetricUnit.Count, slo.atRisk ? 1 : 0],
  ];
}

/** The burn rates of a record decided under an SLO control, by window (none without a reading). */
export function burnRates(record: DecisionRecord): ['fast' | 'slow', number][] {
  const h = record.inputs.slo ? record.decision?.headroom : undefined;
  if (!h) return [];
  const out: ['fast' | 'slow', number][] = [];
  if (h.fastBurn !== null) out.push(['fast', h.fastBurn]);
  if (h.slowBurn !== null) out.push(['slow', h.slowBurn]);
  return out;
}

export function powertoolsTelemetry(logger: Logger, metrics: Metrics): Telemetry {
  // Per-target metrics carry exactly [TargetId] (and Reason): no default `service` dimension.
  metrics.clearDefaultDimensions();
  const control = (name: string, unit: Unit, value: number) => {
    metrics.addDimensions(SERVICE_DIMENSION);
    metrics.addMetric(name, unit, value);
    metrics.publishStoredMetrics();
  };
  return {
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    decision(record, latencyMs) {
      logger.info(`decision ${record.targetId}: ${record.outcome}`, { record });
      const d = record.decision;
      metrics.addDimension('TargetId', record.targetId);
      if (d) {
        metrics.addMetric('DesiredCapacity', MetricUnit.Count, d.desiredCapacity);
        metrics.addMetric('CurrentCapacity', MetricUnit.Count, d.currentCapacity);
        metrics.addMetric('Decisions', MetricUnit.Count, 1);
        metrics.addMetric('SuccessfulEvaluations', MetricUnit.Count, 1);
      }
      metrics.addMetric('ActionFailures', MetricUnit.Count, record.outcome === 'failed' ? 1 : 0);
      metrics.addMetric('EvaluationLatency', MetricUnit.Milliseconds, latencyMs);
      for (const [name, unit, value] of budgetMetrics(record)) metrics.addMetric(name, unit, value);
      metrics.publishStoredMetrics();
      for (const [window, burn] of burnRates(record)) {
        metrics.addDimensions({ TargetId: record.targetId, Window: window });
        metrics.addMetric('BurnRate', MetricUnit.NoUnit, burn);
        metrics.publishStoredMetrics();
      }
      for (const reason of new Set(d?.reasons ?? [])) {
        metrics.addDimensions({ TargetId: record.targetId, Reason: reason });
        metrics.addMetric('Decisions', MetricUnit.Count, 1);
        metrics.publishStoredMetrics();
      }
    },
    policyLoadFailure(problems) {
      for (const line of problems) logger.error(`policy problem: ${line}`);
      control('PolicyLoadFailures', MetricUnit.Count, 1);
    },
    count: (metric, value) => control(metric, MetricUnit.Count, value),
    invocationSucceeded(latencyMs) {
      metrics.addDimensions(SERVICE_DIMENSION);
      metrics.addMetric('SuccessfulEvaluations', MetricUnit.Count, 1);
      metrics.addMetric('EvaluationLatency', MetricUnit.Milliseconds, latencyMs);
      metrics.publishStoredMetrics();
    },
  };
}
